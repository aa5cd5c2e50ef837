package tflintrules

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// EnvTFLint names the TFLint binary the integration test runs (scripts/test.sh sets it to the
// TFLint of tools/tflint, built by scripts/tool.sh tflint); the test is skipped without it.
const EnvTFLint = "KUBEINFER_TFLINT"

// tflintOutput is TFLint's --format=json output.
type tflintOutput struct {
	Issues []struct {
		Rule struct {
			Name     string `json:"name"`
			Severity string `json:"severity"`
		} `json:"rule"`
		Message string `json:"message"`
		Range   struct {
			Filename string `json:"filename"`
			Start    struct {
				Line   int `json:"line"`
				Column int `json:"column"`
			} `json:"start"`
		} `json:"range"`
	} `json:"issues"`
	Errors []struct {
		Message string `json:"message"`
	} `json:"errors"`
}

const tflintConfig = `
# The bundled terraform ruleset is left out: its style rules are not under test.
plugin "terraform" {
  enabled = false
}

plugin "kubeinfer" {
  enabled = true
}
`

const tflintMisspelled = `resource "kubeinfer_leaderworkerset" "vllm" {
  metadata = {
    name     = "vllm"
    nmespace = "inference"
  }
  spec = {
    replicaz = 2
    leader_worker_template = {
      size = 0
      worker_template = {
        spec = {
          containers = [{
            name            = "vllm"
            image           = "vllm/vllm-openai:v0.6.0"
            imagePullPolicy = "IfNotPresent"
          }]
        }
      }
    }
  }
}
`

// TestTFLint builds the plugin, runs the real TFLint with it on a module with misspellings and a
// plan-time error, and on examples/inference-cluster, which has no issue.
func TestTFLint(t *testing.T) {
	tflint := os.Getenv(EnvTFLint)
	if tflint == "" {
		t.Skip(EnvTFLint + " is not set (scripts/test.sh sets it to `scripts/tool.sh tflint`)")
	}
	start := time.Now()
	dir := t.TempDir()
	pluginDir := filepath.Join(dir, "plugins")
	bin := filepath.Join(pluginDir, "tflint-ruleset-kubeinfer")
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	build := exec.Command("go", "build", "-buildvcs=false", "-o", bin, "../../cmd/tflint-ruleset-kubeinfer")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	built := time.Since(start)
	config := filepath.Join(dir, ".tflint.hcl")
	module := filepath.Join(dir, "module")
	if err := os.MkdirAll(module, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(config, []byte(tflintConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(module, "main.tf"), []byte(tflintMisspelled), 0o644); err != nil {
		t.Fatal(err)
	}

	out, code := runTFLint(t, tflint, pluginDir, config, module)
	if code != 2 {
		t.Errorf("exit status %d, want 2 (issues found)", code)
	}
	var got []string
	for _, i := range out.Issues {
		got = append(got, fmt.Sprintf("%s:%d:%d %s %s: %s", i.Range.Filename, i.Range.Start.Line, i.Range.Start.Column, i.Rule.Severity, i.Rule.Name, i.Message))
	}
	want := []string{
		`main.tf:4:5 error kubeinfer_unknown_attribute: metadata: "nmespace" is not an attribute of kubeinfer_leaderworkerset; did you mean "namespace"?`,
		`main.tf:7:5 error kubeinfer_unknown_attribute: spec: "replicaz" is not an attribute of kubeinfer_leaderworkerset; did you mean "replicas"?`,
		`main.tf:9:14 error kubeinfer_plan_time_validation: spec.leader_worker_template.size: Invalid value: 0: must be greater than or equal to 1 (Kubernetes field spec.leaderWorkerTemplate.size)`,
		`main.tf:15:13 error kubeinfer_unknown_attribute: spec.leader_worker_template.worker_template.spec.containers[0]: "imagePullPolicy" is not an attribute of kubeinfer_leaderworkerset; did you mean "image_pull_policy"?`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("issues:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	example, err := filepath.Abs(filepath.Join("..", "..", "examples", "inference-cluster"))
	if err != nil {
		t.Fatal(err)
	}
	out, code = runTFLint(t, tflint, pluginDir, config, example)
	if code != 0 || len(out.Issues) != 0 {
		t.Errorf("examples/inference-cluster: exit status %d, %d issues, want none", code, len(out.Issues))
	}
	t.Logf("plugin built in %v, both TFLint runs in %v", built.Round(time.Millisecond), (time.Since(start) - built).Round(time.Millisecond))
}

// runTFLint runs TFLint on dir with the plugin directory and configuration, logs its output and
// returns it decoded, with its exit status.
func runTFLint(t *testing.T, tflint, pluginDir, config, dir string) (tflintOutput, int) {
	t.Helper()
	cmd := exec.Command(tflint, "--format=json", "--config="+config)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "TFLINT_PLUGIN_DIR="+pluginDir, "TFLINT_LOG=")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		code = exit.ExitCode()
	case err != nil:
		t.Fatalf("%s: %v", tflint, err)
	}
	t.Logf("tflint --format=json in %s: exit status %d\n%s%s", filepath.Base(dir), code, stdout.String(), stderr.String())
	var out tflintOutput
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		t.Fatalf("tflint output: %v", err)
	}
	for _, e := range out.Errors {
		t.Errorf("tflint error: %s", e.Message)
	}
	return out, code
}
