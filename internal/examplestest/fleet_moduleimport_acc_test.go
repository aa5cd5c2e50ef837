package examplestest

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/acctest"
)

// rootImportBlock is a top-level import block of a configuration written by terraform fmt.
var rootImportBlock = regexp.MustCompile(`(?ms)^import \{\n.*?^\}\n`)

// inferenceCall is a call of modules/inference: its name, providers and variables, which the
// call of modules/adopted-inference passes as its object variable inference.
var inferenceCall = regexp.MustCompile(`(?ms)^module "(\w+)" \{\n  source += "\.\./modules/inference"\n  providers += ([^\n]*)\n(.*?)^\}\n`)

// TestAccExample_fleetModuleImport: the fleet runs in three clusters, applied by
// examples/fleet/terraform, whose state is then dropped (the objects are another tool's now);
// the same root calling modules/adopted-inference instead of modules/inference (with the same
// variables) (the import
// blocks inside the module, Terraform 1.16 and later) plans only the three imports, applies
// them, plans nothing more, and its destroy removes the objects. It runs under Terraform 1.16
// and later alone: older Terraform and OpenTofu refuse import blocks inside a module.
func TestAccExample_fleetModuleImport(t *testing.T) {
	cli := os.Getenv("TF_ACC_TERRAFORM_PATH")
	if cli == "" || acctest.UnderOpenTofu() {
		t.Skip("import blocks inside a module: Terraform 1.16 and later")
	}
	if v := acctest.CLIVersion(t, cli); v.LessThan(acctest.Terraform116) {
		t.Skipf("import blocks inside a module: Terraform 1.16 and later, not %s", v)
	}
	f := newFleet(t, false)
	f.writeVars("terraform")
	f.mustRun("terraform", "get", "-no-color")
	f.mustRun("terraform", "apply", "-auto-approve", "-no-color", "-input=false")
	f.checkApplied()
	if err := os.Remove(filepath.Join(f.work, "fleet", "terraform", "terraform.tfstate")); err != nil {
		t.Fatal(err)
	}

	// The same root, each module call through the adopting module, without the root's import
	// blocks (which name the resources of modules/inference at the module call).
	main := filepath.Join(f.work, "fleet", "terraform", "main.tf")
	src, err := os.ReadFile(main)
	if err != nil {
		t.Fatal(err)
	}
	adopting := rootImportBlock.ReplaceAllString(string(src), "")
	adopting = inferenceCall.ReplaceAllString(adopting, "module \"$1\" {\n  source    = \"../modules/adopted-inference\"\n  providers = $2\n  inference = {\n$3  }\n}\n")
	if strings.Count(adopting, "../modules/adopted-inference") != 3 {
		t.Fatalf("examples/fleet/terraform does not call modules/inference three times:\n%s", src)
	}
	if err := os.WriteFile(main, []byte(adopting), 0o644); err != nil {
		t.Fatal(err)
	}
	f.mustRun("terraform", "get", "-no-color")
	f.adoptThree([]string{"-no-color", "-input=false"}, "module.%s.module.inference.kubeinfer_leaderworkerset.vllm")
}
