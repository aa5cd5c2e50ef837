package examplestest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/acctest"
)

// TestAccExample_fleetAdopt: Terraform 1.16 runs import blocks inside modules. The fleet runs in
// three clusters, applied by examples/fleet/terraform, whose state is then dropped (the objects
// are another tool's now); examples/fleet/adopt, calling modules/adopt per cluster, plans only
// the three imports, applies them, plans nothing more, and its destroy removes the objects.
func TestAccExample_fleetAdopt(t *testing.T) {
	if os.Getenv("TF_ACC_PROVIDER_HOST") == "registry.opentofu.org" {
		t.Skip("OpenTofu runs no import blocks inside modules; the migration guide's OpenTofu path is its way to adopt")
	}
	tf := os.Getenv("TF_ACC_TERRAFORM_PATH")
	if tf == "" {
		t.Skip("TF_ACC_TERRAFORM_PATH is not set")
	}
	if v := acctest.CLIVersion(t, tf); v.LessThan(acctest.Terraform116) {
		t.Skipf("Terraform %s runs no import blocks inside modules (1.16 and later)", v)
	}
	f := newFleet(t, false)
	f.writeVars("terraform")
	f.writeVars("adopt")
	f.mustRun("terraform", "get", "-no-color")
	f.mustRun("terraform", "apply", "-auto-approve", "-no-color", "-input=false")
	f.checkApplied()
	// The objects are no longer this configuration's: its state goes.
	if err := os.Remove(filepath.Join(f.work, "fleet", "terraform", "terraform.tfstate")); err != nil {
		t.Fatal(err)
	}

	f.mustRun("adopt", "get", "-no-color")
	plan := f.mustRun("adopt", "plan", "-no-color", "-input=false")
	if !strings.Contains(plan, "Plan: 3 to import, 0 to add, 0 to change, 0 to destroy.") {
		t.Fatalf("the adopting plan is not three imports alone:\n%s", plan)
	}
	if out := f.mustRun("adopt", "apply", "-auto-approve", "-no-color", "-input=false"); !strings.Contains(out, "3 imported, 0 added, 0 changed, 0 destroyed") {
		t.Errorf("apply:\n%s", out)
	}
	f.checkApplied()
	if out, err := f.run("adopt", "plan", "-detailed-exitcode", "-no-color", "-input=false"); err != nil {
		t.Errorf("the plan after the adoption is not empty (%v):\n%s", err, out)
	}
	f.mustRun("adopt", "destroy", "-auto-approve", "-no-color", "-input=false")
	f.checkDestroyed()
}
