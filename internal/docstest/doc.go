// Package docstest checks the user-facing Markdown pages (README.md, CONTRIBUTING.md,
// docs/index.md and docs/guides/*.md) against the repository: every relative link and
// heading anchor resolves, every `make <target>` they mention is a target of GNUmakefile,
// and every HCL snippet (a fenced block tagged hcl or terraform) parses.
//
// It has only tests, which need no cluster and no Terraform CLI.
package docstest
