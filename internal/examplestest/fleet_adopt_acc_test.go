package examplestest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/acctest"
)

// TestAccExample_fleetAdopt: the fleet runs in three clusters, applied by examples/fleet/terraform,
// whose state is then dropped (the objects are another tool's now); the same configuration with
// adopt = true (its root import blocks, for_each driven by the variable) plans only the three
// imports, applies them, plans nothing more, and its destroy removes the objects. It runs under
// the first CLI and under OpenTofu, which adopts this way too.
func TestAccExample_fleetAdopt(t *testing.T) {
	tofu := os.Getenv("TF_ACC_PROVIDER_HOST") == "registry.opentofu.org"
	if !tofu && !acctest.IsFirstCLI() {
		t.Skip("import blocks with for_each in the root module: it runs under the first CLI and OpenTofu")
	}
	f := newFleet(t, tofu)
	f.writeVars("terraform")
	f.mustRun("terraform", "get", "-no-color")
	f.mustRun("terraform", "apply", "-auto-approve", "-no-color", "-input=false")
	f.checkApplied()
	// The objects are no longer this configuration's: its state goes.
	if err := os.Remove(filepath.Join(f.work, "fleet", "terraform", "terraform.tfstate")); err != nil {
		t.Fatal(err)
	}

	adopt := []string{"-no-color", "-input=false", "-var", "adopt=true"}
	plan := f.mustRun("terraform", append([]string{"plan"}, adopt...)...)
	if !strings.Contains(plan, "Plan: 3 to import, 0 to add, 0 to change, 0 to destroy.") {
		t.Fatalf("the adopting plan is not three imports alone:\n%s", plan)
	}
	if out := f.mustRun("terraform", append([]string{"apply", "-auto-approve"}, adopt...)...); !strings.Contains(out, "3 imported, 0 added, 0 changed, 0 destroyed") {
		t.Errorf("apply:\n%s", out)
	}
	f.checkApplied()
	if out, err := f.run("terraform", append([]string{"plan", "-detailed-exitcode"}, adopt...)...); err != nil {
		t.Errorf("the plan after the adoption is not empty (%v):\n%s", err, out)
	}
	f.mustRun("terraform", append([]string{"destroy", "-auto-approve"}, adopt...)...)
	f.checkDestroyed()
}
