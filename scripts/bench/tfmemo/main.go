// Command tfmemo prepares a copy of the Terraform CLI's source for the experiment in
// scripts/bench/terraform-memo.sh: it memoizes configschema's Block.ImpliedType and
// Object.ImpliedType, which Terraform recomputes for every nested attribute of every resource
// instance it plans (plans/objchange.AssertPlanValid), and drops what a module-zip build cannot
// compile (the remote-state backends that live in nested modules, godebug lines the local Go
// toolchain does not know).
//
//	go run ./scripts/bench/tfmemo -src /tmp/terraform-src
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

func main() {
	src := flag.String("src", "", "writable copy of github.com/hashicorp/terraform (v1.11.x)")
	flag.Parse()
	if *src == "" {
		log.Fatal("tfmemo: -src is required")
	}
	edit(*src, "internal/configs/configschema/implied_type.go", memoize)
	edit(*src, "internal/backend/init/init.go", dropNestedBackends)
	edit(*src, "go.mod", dropNestedModules)
}

func edit(root, name string, fn func(string) (string, error)) {
	p := filepath.Join(root, name)
	b, err := os.ReadFile(p)
	if err != nil {
		log.Fatal(err)
	}
	out, err := fn(string(b))
	if err != nil {
		log.Fatalf("tfmemo: %s: %v", name, err)
	}
	if err := os.WriteFile(p, []byte(out), 0o644); err != nil {
		log.Fatal(err)
	}
}

// memoize caches ImpliedType per schema pointer: schemas are immutable once loaded.
func memoize(s string) (string, error) {
	for _, recv := range []struct{ name, typ string }{{"b", "Block"}, {"o", "Object"}} {
		old := fmt.Sprintf("func (%s *%s) ImpliedType() cty.Type {\n\treturn %s.specType().WithoutOptionalAttributesDeep()\n}", recv.name, recv.typ, recv.name)
		if !strings.Contains(s, old) {
			return "", fmt.Errorf("%s.ImpliedType not found in the expected form", recv.typ)
		}
		cache := "implied" + recv.typ + "Types"
		s = strings.Replace(s, old, fmt.Sprintf(`var %[3]s sync.Map // *%[2]s -> cty.Type

func (%[1]s *%[2]s) ImpliedType() cty.Type {
	if %[1]s == nil {
		return %[1]s.specType().WithoutOptionalAttributesDeep()
	}
	if t, ok := %[3]s.Load(%[1]s); ok {
		return t.(cty.Type)
	}
	t := %[1]s.specType().WithoutOptionalAttributesDeep()
	%[3]s.Store(%[1]s, t)
	return t
}`, recv.name, recv.typ, cache), 1)
	}
	return strings.Replace(s, "import (", "import (\n\t\"sync\"", 1), nil
}

var nestedBackends = []string{"Azure", "Consul", "Cos", "GCS", "Kubernetes", "OSS", "Pg", "S3"}

func dropNestedBackends(s string) (string, error) {
	for _, b := range nestedBackends {
		s = regexp.MustCompile(`\n\tbackend`+b+` "[^"]*"`).ReplaceAllString(s, "")
		s = regexp.MustCompile(`\n\t\t"[a-z0-9]+":\s+func\(\) backend.Backend \{ return backend`+b+`\.New\(\) \},`).ReplaceAllString(s, "")
	}
	return s, nil
}

func dropNestedModules(s string) (string, error) {
	s = regexp.MustCompile(`(?m)^replace github.com/hashicorp/terraform/internal/.*\n`).ReplaceAllString(s, "")
	s = regexp.MustCompile(`\n\tgithub.com/hashicorp/terraform/internal/[^\n]*`).ReplaceAllString(s, "")
	s = regexp.MustCompile(`(?m)^godebug .*\n`).ReplaceAllString(s, "")
	return s, nil
}
