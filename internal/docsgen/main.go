// Command docsgen rewrites the reference pages tfplugindocs generates so that the pod template
// is documented once.
//
// Every pod template of the provider (core/v1 PodTemplateSpec: `leader_template` and
// `worker_template` of a LeaderWorkerSet, the same two of each DisaggregatedSet role) has about
// 290 nested attribute sections. tfplugindocs writes them out under every template of every
// resource and data source page, which made those pages close to the Terraform Registry's limit
// of 500 KB per page. docsgen, run by scripts/docs.sh after `tfplugindocs generate` (in both its
// generate and check modes), reads the generated pages and:
//
//   - finds each pod template by its shape (a nested object of `metadata` and `spec` whose `spec`
//     has `containers` and `volumes`), not by its name;
//   - removes the template's sections from the page and makes the attribute link to
//     docs/guides/pod-template.md instead, with a paragraph under "## Schema" naming the
//     templates of the page;
//   - writes docs/guides/pod-template.md from the removed sections: one copy of the attributes,
//     with the places the template is used, the naming rule, and, where two places describe an
//     attribute differently, each description with the kinds it applies to. Nested objects that
//     are the same as one already written (the containers of `init_containers`, the probes, the
//     affinity terms) link to it instead of repeating it.
//
// It reads only what tfplugindocs wrote (the provider schema as rendered), so the pages stay
// generated from the schema; it never reads the docs it wrote itself (on such a folder it fails:
// run scripts/docs.sh generate).
//
// Usage:
//
//	go run ./internal/docsgen [-docs DIR]
package main

import (
	"flag"
	"fmt"
	"os"
)

func main() {
	dir := flag.String("docs", "docs", "the docs folder tfplugindocs generated")
	flag.Parse()
	if flag.NArg() != 0 {
		fmt.Fprintln(os.Stderr, "usage: docsgen [-docs DIR]")
		os.Exit(2)
	}
	changed, err := run(*dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "docsgen:", err)
		os.Exit(1)
	}
	for _, f := range changed {
		fmt.Println("docsgen: wrote", f)
	}
}
