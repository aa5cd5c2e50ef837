package leaderworkerset_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	goversion "github.com/hashicorp/go-version"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/acctest"
	lwsv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/leaderworkerset/v1"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/leaderworkerset/lwsfixture"
)

// terraformAtLeast skips the test unless TF_ACC_TERRAFORM_PATH is a Terraform of version atLeast or
// later (OpenTofu has no actions), and returns its path.
func terraformAtLeast(t *testing.T, atLeast *goversion.Version) string {
	t.Helper()
	if acctest.UnderOpenTofu() {
		t.Skip("OpenTofu has no actions")
	}
	tf := os.Getenv("TF_ACC_TERRAFORM_PATH")
	if tf == "" {
		t.Skip("needs TF_ACC_TERRAFORM_PATH (set by " + acctest.EnvCLIs + ")")
	}
	if v := acctest.CLIVersion(t, tf); v.LessThan(atLeast) {
		t.Skipf("Terraform %s: needs %s or later", v, atLeast)
	}
	return tf
}

// unschedulable keeps the set's pods Pending: no node has the label, so no group turns Ready.
func unschedulable(o *lwsv1.LeaderWorkerSet) {
	none := map[string]string{"kubeinfer.test/no-such-node": "true"}
	o.Spec.LeaderWorkerTemplate.WorkerTemplate.Spec.NodeSelector = none
	if lt := o.Spec.LeaderWorkerTemplate.LeaderTemplate; lt != nil {
		lt.Spec.NodeSelector = none
	}
}

// restartOnFailure is the restart action run from an action trigger (Terraform 1.16) when the
// model's configuration changes: model_config carries its hash as input (after_update), or
// replaces itself on a new hash (after_create, the one event on_failure = taint acts on:
// hashicorp/terraform v1.16.3 internal/terraform/node_resource_abstract_instance.go,
// invokeActions). The action's timeout is short: the groups of the set never turn Ready.
func restartOnFailure(name, hashAttr, event, onFailure string) string {
	return fmt.Sprintf(`
variable "model_config" {
  type = string
}

action "kubeinfer_leaderworkerset_restart" "all" {
  config {
    metadata = {
      name      = kubeinfer_leaderworkerset.test.metadata.name
      namespace = kubeinfer_leaderworkerset.test.metadata.namespace
    }
    timeouts = { invoke = "5s" }
  }
}

resource "terraform_data" "model_config" {
  %[1]s = sha256(var.model_config)
  lifecycle {
    action_trigger {
      events     = [%[2]s]
      actions    = [action.kubeinfer_leaderworkerset_restart.all]
      on_failure = %[3]s
    }
  }
}
`, hashAttr, event, onFailure)
}

// TestAccLeaderWorkerSet_restartOnFailure: the restart action from an action_trigger of a
// terraform_data holding the hash of the model's configuration, on a set whose groups never turn
// Ready, under each on_failure: halt fails the apply, continue applies with the action's error
// as a warning, taint fails the apply and taints the triggering terraform_data, whose
// replacement (and the restart with it) the next plan proposes.
func TestAccLeaderWorkerSet_restartOnFailure(t *testing.T) {
	runsBesideOthers(t)
	tf := terraformAtLeast(t, acctest.Terraform116)
	const name = "acc-restart-on-failure"
	lwsClient(t)
	dir := t.TempDir()
	base := "terraform {\n  required_providers {\n    kubeinfer = { source = \"kubeinfer/kubeinfer\" }\n  }\n}\n" + acctest.ProviderConfig(t) +
		vllm(lwsfixture.VLLM(name, 1, 1, lwsfixture.SmallGPU, unschedulable), "wait_for_rollout = false")
	env := append(os.Environ(), "TF_REATTACH_PROVIDERS="+serveProvider(t), "CHECKPOINT_DISABLE=1", "TF_IN_AUTOMATION=1", "TF_CLI_CONFIG_FILE=/dev/null")
	run := func(args ...string) (string, error) {
		t.Helper()
		cmd := exec.Command(tf, append([]string{"-chdir=" + dir}, args...)...)
		cmd.Env = env
		start := time.Now()
		out, err := cmd.CombinedOutput()
		t.Logf("terraform %s: %s", strings.Join(args, " "), time.Since(start).Round(time.Millisecond))
		return string(out), err
	}
	must := func(args ...string) string {
		t.Helper()
		out, err := run(args...)
		if err != nil {
			t.Fatalf("terraform %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return out
	}
	write := func(cfg string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(base+cfg), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	const actionError = "Cannot restart LeaderWorkerSet default/" + name
	// diagnostic is the action's diagnostic in out (Error or Warning), which must say that the
	// groups did not turn Ready in time.
	diagnostic := func(t *testing.T, out, severity string) {
		t.Helper()
		i := strings.Index(out, severity+": "+actionError)
		if i < 0 {
			t.Fatalf("no %s %q in the output:\n%s", severity, actionError, out)
		}
		d := out[i:]
		if j := strings.Index(d, "\n\n\n"); j > 0 {
			d = d[:j]
		}
		if !strings.Contains(d, "timed out waiting for") {
			t.Fatalf("the action failed, but not for groups that do not turn Ready:\n%s", d)
		}
		t.Logf("%s", d)
	}

	write(restartOnFailure(name, "input", "after_update", "halt"))
	must("init", "-no-color")
	// The creation of model_config is no update: nothing is invoked.
	if out := must("apply", "-auto-approve", "-no-color", "-var", "model_config=max_model_len=8192"); strings.Contains(out, "Action ") {
		t.Fatalf("an action ran on create, with events = [after_update]:\n%s", out)
	}
	t.Cleanup(func() {
		if out, err := run("destroy", "-auto-approve", "-no-color", "-var", "model_config=-"); err != nil {
			t.Errorf("terraform destroy: %v\n%s", err, out)
		}
	})

	t.Run("halt", func(t *testing.T) {
		out, err := run("apply", "-auto-approve", "-no-color", "-var", "model_config=max_model_len=16384")
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			t.Fatalf("on_failure = halt: the apply did not fail (err %v):\n%s", err, out)
		}
		diagnostic(t, out, "Error")
	})
	t.Run("continue", func(t *testing.T) {
		write(restartOnFailure(name, "input", "after_update", "continue"))
		out := must("apply", "-auto-approve", "-no-color", "-var", "model_config=max_model_len=32768")
		if strings.Contains(out, "Error: ") {
			t.Fatalf("on_failure = continue: an error in the output:\n%s", out)
		}
		diagnostic(t, out, "Warning")
		if strings.Contains(must("show", "-no-color"), "tainted") {
			t.Fatal("on_failure = continue tainted a resource")
		}
	})
	t.Run("taint", func(t *testing.T) {
		write(restartOnFailure(name, "triggers_replace", "after_create", "taint"))
		out, err := run("apply", "-auto-approve", "-no-color", "-var", "model_config=max_model_len=65536")
		if err == nil {
			t.Fatalf("on_failure = taint: the apply did not fail:\n%s", out)
		}
		diagnostic(t, out, "Error")
		state := must("show", "-json")
		var st struct {
			Values struct {
				RootModule struct {
					Resources []struct {
						Address string `json:"address"`
						Tainted bool   `json:"tainted"`
					} `json:"resources"`
				} `json:"root_module"`
			} `json:"values"`
		}
		if err := json.Unmarshal([]byte(state), &st); err != nil {
			t.Fatal(err)
		}
		tainted := map[string]bool{}
		for _, r := range st.Values.RootModule.Resources {
			tainted[r.Address] = r.Tainted
		}
		if !tainted["terraform_data.model_config"] || tainted["kubeinfer_leaderworkerset.test"] {
			t.Fatalf("on_failure = taint: want terraform_data.model_config tainted and the LeaderWorkerSet not: %v", tainted)
		}
		plan := must("plan", "-no-color", "-var", "model_config=max_model_len=65536")
		if !strings.Contains(plan, "terraform_data.model_config is tainted, so must be replaced") {
			t.Fatalf("the plan after a tainting failure does not replace the trigger:\n%s", plan)
		}
	})
}
