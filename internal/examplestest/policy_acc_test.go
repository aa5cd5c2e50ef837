package examplestest

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/acctest"
)

// EnvOPA names the OPA binary (scripts/tool.sh opa), which scripts/test.sh sets for the go phase.
const EnvOPA = "KUBEINFER_OPA"

// TestAccExample_policy is the pull-request pipeline of examples/policy: a plan with
// -refresh=false and no cluster credentials (no kubeconfig, no KUBE_*), `show -json`, and OPA
// (built from its Go module, tools/opa) evaluating the example's policies on it: the example as
// it is passes, with denied.tfvars it is denied with the policies' messages (GPU budget from the
// footprint, registry, secret literal). The policies' own tests run with `opa test`.
func TestAccExample_policy(t *testing.T) {
	acctest.FirstCLIOnly(t, "OPA on the plan JSON (the CLI matrix covers plans)")
	if os.Getenv("TF_ACC") == "" {
		t.Skip("TF_ACC is not set")
	}
	opa := os.Getenv(EnvOPA)
	if opa == "" {
		t.Skip(EnvOPA + " is not set: scripts/test.sh sets it to the OPA built from tools/opa")
	}
	cli := os.Getenv("TF_ACC_TERRAFORM_PATH")
	root, err := acctest.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	if out, err := exec.Command("cp", "-r", filepath.Join(root, "examples", "policy"), work).CombinedOutput(); err != nil {
		t.Fatalf("copying examples/policy: %v\n%s", err, out)
	}
	dir := filepath.Join(work, "policy")
	bin, serveEnv := acctest.ProviderBinaryDir(t)
	cliConfig := filepath.Join(work, "cli.tfrc")
	if err := os.WriteFile(cliConfig, []byte("provider_installation {\n  dev_overrides {\n    \"registry.terraform.io/kubeinfer/kubeinfer\" = \""+bin+"\"\n  }\n  direct {}\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var env []string
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "KUBE_") || k == "KUBECONFIG" || k == "KUBERNETES_SERVICE_HOST" {
			continue
		}
		env = append(env, kv)
	}
	env = append(env, "TF_CLI_CONFIG_FILE="+cliConfig, serveEnv, "TF_IN_AUTOMATION=1", "CHECKPOINT_DISABLE=1",
		"KUBECONFIG="+filepath.Join(work, "no-kubeconfig"))
	run := func(name string, args ...string) string {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir = dir
		cmd.Env = env
		out, err := cmd.Output()
		if err != nil {
			stderr := ""
			if ee, ok := err.(*exec.ExitError); ok {
				stderr = string(ee.Stderr)
			}
			t.Fatalf("%s %s: %v\n%s%s", filepath.Base(name), strings.Join(args, " "), err, out, stderr)
		}
		return string(out)
	}

	t.Logf("opa test policy/:\n%s", indent(run(opa, "test", "-v", "policy/")))

	// deny evaluates the policies on the plan JSON of a plan made with args.
	deny := func(planName string, args ...string) []string {
		t.Helper()
		run(cli, append([]string{"plan", "-refresh=false", "-input=false", "-no-color", "-out=" + planName}, args...)...)
		planJSON := filepath.Join(dir, planName+".json")
		if err := os.WriteFile(planJSON, []byte(run(cli, "show", "-json", planName)), 0o644); err != nil {
			t.Fatal(err)
		}
		out := run(opa, "eval", "-d", "policy/", "-d", "data.json", "-i", planJSON, "-f", "json", "data.kubeinfer.policy.deny")
		t.Logf("opa eval data.kubeinfer.policy.deny on %s:\n%s", planName, indent(run(opa, "eval", "-d", "policy/", "-d", "data.json", "-i", planJSON, "-f", "pretty", "data.kubeinfer.policy.deny")))
		var res struct {
			Result []struct {
				Expressions []struct{ Value []string }
			}
		}
		if err := json.Unmarshal([]byte(out), &res); err != nil || len(res.Result) != 1 || len(res.Result[0].Expressions) != 1 {
			t.Fatalf("opa eval output: %v\n%s", err, out)
		}
		msgs := res.Result[0].Expressions[0].Value
		slices.Sort(msgs)
		return msgs
	}

	// The footprint the policy reads, from the plan JSON.
	if msgs := deny("allowed.tfplan"); len(msgs) != 0 {
		t.Errorf("the example as it is is denied: %q", msgs)
	}
	var plan struct {
		ResourceChanges []struct {
			Change struct {
				After struct {
					Footprint map[string]any `json:"footprint"`
				} `json:"after"`
			} `json:"change"`
		} `json:"resource_changes"`
	}
	data, err := os.ReadFile(filepath.Join(dir, "allowed.tfplan.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &plan); err != nil || len(plan.ResourceChanges) != 1 {
		t.Fatalf("plan JSON: %v", err)
	}
	footprint, _ := json.Marshal(plan.ResourceChanges[0].Change.After.Footprint)
	t.Logf("footprint in terraform show -json: %s", footprint)
	if !strings.Contains(string(footprint), `"peak_requests":{"cpu":"96","memory":"1536Gi","nvidia.com/gpu":"48"}`) {
		t.Errorf("the footprint of 2 groups of 2 pods with 8 GPUs and one surge group: %s", footprint)
	}

	want := []string{
		"kubeinfer_leaderworkerset.vllm: env WANDB_API_KEY holds a literal value; take it from a Secret (value_from.secret_key_ref)",
		"kubeinfer_leaderworkerset.vllm: image docker.io/someone/vllm:latest is not from an allowed registry (registry.example.com/, nvcr.io/nvidia/)",
		"namespace inference: 80 GPUs at the rollout peak, over its budget of 64",
	}
	if got := deny("denied.tfplan", "-var-file=denied.tfvars"); !slices.Equal(got, want) {
		t.Errorf("denied plan: got %q, want %q", got, want)
	}
}

func indent(s string) string {
	return "    " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n    ")
}
