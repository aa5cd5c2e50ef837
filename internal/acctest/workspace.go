package acctest

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Workspace is a configuration with a state of its own, run by the CLI of the current run of
// EnvCLIs (TF_ACC_TERRAFORM_PATH) beside the one terraform-plugin-testing drives: another
// folder or workspace that declares the same objects. The provider is this test binary
// (ProviderBinaryDir), found through dev_overrides, so no init is needed.
type Workspace struct {
	t   testing.TB
	dir string
	cli string
	env []string
}

// NewWorkspace makes an empty workspace.
func NewWorkspace(t testing.TB) *Workspace {
	t.Helper()
	cli := os.Getenv("TF_ACC_TERRAFORM_PATH")
	if cli == "" {
		t.Fatal("TF_ACC_TERRAFORM_PATH is not set: run the suite through scripts/test.sh or set it to a Terraform or OpenTofu CLI")
	}
	bin, serveEnv := ProviderBinaryDir(t)
	dir := t.TempDir()
	cliConfig := filepath.Join(dir, "cli.tfrc")
	overrides := "provider_installation {\n  dev_overrides {\n" +
		"    \"registry.terraform.io/kubeinfer/kubeinfer\" = \"" + bin + "\"\n" +
		"    \"registry.opentofu.org/kubeinfer/kubeinfer\" = \"" + bin + "\"\n" +
		"  }\n  direct {}\n}\n"
	if err := os.WriteFile(cliConfig, []byte(overrides), 0o644); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "TF_CLI_CONFIG_FILE="+cliConfig, serveEnv, "TF_IN_AUTOMATION=1", "CHECKPOINT_DISABLE=1")
	return &Workspace{t: t, dir: dir, cli: cli, env: env}
}

// Configure writes the configuration: a provider block for c and hcl.
func (w *Workspace) Configure(c *TestCluster, hcl string) {
	w.t.Helper()
	w.ConfigureAs(c.KubeconfigPath(), hcl)
}

// ConfigureAs writes the configuration: a provider block reading the kubeconfig file at path
// (another user's, e.g. TestCluster.UnboundUserKubeconfig) and hcl.
func (w *Workspace) ConfigureAs(kubeconfig, hcl string) {
	w.t.Helper()
	cfg := "terraform {\n  required_providers {\n    kubeinfer = { source = \"kubeinfer/kubeinfer\" }\n  }\n}\n" +
		"provider \"kubeinfer\" {\n  config_path = \"" + kubeconfig + "\"\n}\n" + hcl
	if err := os.WriteFile(filepath.Join(w.dir, "main.tf"), []byte(cfg), 0o644); err != nil {
		w.t.Fatal(err)
	}
}

// Run runs the CLI with args in the workspace: its output (stdout and stderr) and whether it
// exited 0.
func (w *Workspace) Run(args ...string) (string, bool) {
	w.t.Helper()
	cmd := exec.Command(w.cli, args...)
	cmd.Dir = w.dir
	cmd.Env = w.env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err == nil
}

// MustRun runs the CLI and fails the test when it does not exit 0.
func (w *Workspace) MustRun(args ...string) string {
	w.t.Helper()
	out, ok := w.Run(args...)
	if !ok {
		w.t.Fatalf("%s %s failed:\n%s", filepath.Base(w.cli), strings.Join(args, " "), out)
	}
	return out
}
