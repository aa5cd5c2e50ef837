// Package docstest checks the user-facing Markdown pages (README.md, CONTRIBUTING.md and every
// page under docs/) against the repository:
//
//   - every relative link and heading anchor resolves, every `make <target>` the README and
//     CONTRIBUTING.md mention is a target of GNUmakefile, and every HCL snippet parses;
//   - the pages under docs/, which the Terraform Registry shows to readers without a clone,
//     mention no make target, test name, repository-only path or object of the test cluster,
//     have a one-line front matter description, and every type has an example;
//   - the claims the pages make hold: the README's getting started is the file the guide renders,
//     the timeouts' defaults and the settings annotation's list are the code's, the compatibility
//     table of docs/guides/compatibility.md states the versions the tests run and every other
//     page agrees with it, and its limitations list every gap the tests know of.
//
// TestPlantedErrorsAreCaught feeds the checkers planted mistakes. The package has only tests,
// which need no cluster and no Terraform CLI.
package docstest
