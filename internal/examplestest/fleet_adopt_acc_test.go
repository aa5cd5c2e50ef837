package examplestest

import (
	"fmt"
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
	tofu := acctest.UnderOpenTofu()
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
	f.adoptThree(adopt, "module.%s.kubeinfer_leaderworkerset.vllm")
}

// adoptThree runs the adopting configuration of terraform/ with args: its plan is the three
// imports alone (of the resources named by addressFormat with each module call's name), the
// apply imports them, the next plan is empty, and destroy removes the objects.
func (f *fleet) adoptThree(args []string, addressFormat string) {
	f.t.Helper()
	plan := f.mustRun("terraform", append([]string{"plan"}, args...)...)
	if !strings.Contains(plan, "Plan: 3 to import, 0 to add, 0 to change, 0 to destroy.") {
		f.t.Fatalf("the adopting plan is not three imports alone:\n%s", plan)
	}
	for _, m := range []string{"us_east", "eu_west", "ap_south"} {
		if addr := fmt.Sprintf(addressFormat, m) + ": Preparing import"; !strings.Contains(plan, addr) {
			f.t.Errorf("the plan does not import %q:\n%s", addr, plan)
		}
	}
	if out := f.mustRun("terraform", append([]string{"apply", "-auto-approve"}, args...)...); !strings.Contains(out, "3 imported, 0 added, 0 changed, 0 destroyed") {
		f.t.Errorf("apply:\n%s", out)
	}
	f.checkApplied()
	if out, err := f.run("terraform", append([]string{"plan", "-detailed-exitcode"}, args...)...); err != nil {
		f.t.Errorf("the plan after the adoption is not empty (%v):\n%s", err, out)
	}
	f.mustRun("terraform", append([]string{"destroy", "-auto-approve"}, args...)...)
	f.checkDestroyed()
}
