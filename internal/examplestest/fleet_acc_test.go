package examplestest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/acctest"
	lwsv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/leaderworkerset/v1"
)

// TestAccExample_fleet applies examples/fleet to three API servers (the API-server-only
// profile: the CRDs, no controllers, shared by both runs): under OpenTofu the opentofu/
// flavour (provider for_each), under the first Terraform CLI the terraform/ flavour (a module
// call per aliased provider). The provider runs as users run the release binary
// (acctest.ProviderBinaryDir): each provider instance is its own process, configured for its
// cluster. Each cluster gets its own LeaderWorkerSet, a second plan is empty, and destroy
// removes them all.
func TestAccExample_fleet(t *testing.T) {
	tofu := os.Getenv("TF_ACC_PROVIDER_HOST") == "registry.opentofu.org"
	if !tofu && !acctest.IsFirstCLI() {
		t.Skip("the Terraform flavour runs under the first CLI, the OpenTofu flavour under OpenTofu")
	}
	cli := os.Getenv("TF_ACC_TERRAFORM_PATH")
	if cli == "" {
		t.Skip("TF_ACC_TERRAFORM_PATH is not set")
	}
	root, err := acctest.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	host, flavour := "registry.terraform.io", "terraform"
	if tofu {
		host, flavour = "registry.opentofu.org", "opentofu"
	}

	// The three clusters, started together once for both flavours (each destroys what it
	// applied).
	names := []string{"us-east", "eu-west", "ap-south"}
	start := time.Now()
	clusters := acctest.ClustersNamed(t, acctest.NewerFields, names...)
	t.Logf("3 API servers ready in %s", time.Since(start).Round(time.Millisecond))

	work := t.TempDir()
	bin, serveEnv := acctest.ProviderBinaryDir(t)
	cliConfig := filepath.Join(work, "cli.tfrc")
	if err := os.WriteFile(cliConfig, []byte(fmt.Sprintf("provider_installation {\n  dev_overrides {\n    %q = %q\n  }\n  direct {}\n}\n",
		host+"/kubeinfer/kubeinfer", bin)), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("cp", "-r", filepath.Join(root, "examples", "fleet"), filepath.Join(work, "fleet")).CombinedOutput(); err != nil {
		t.Fatalf("copying examples/fleet: %v\n%s", err, out)
	}
	dir := filepath.Join(work, "fleet", flavour)
	var vars string
	if tofu {
		var b strings.Builder
		b.WriteString("clusters = {\n")
		for i, n := range names {
			fmt.Fprintf(&b, "  %q = { config_path = %q }\n", n, clusters[i].KubeconfigPath())
		}
		b.WriteString("}\nwait_for_rollout = false\n")
		vars = b.String()
	} else {
		vars = fmt.Sprintf("kubeconfigs = { us_east = %q, eu_west = %q, ap_south = %q }\nwait_for_rollout = false\n",
			clusters[0].KubeconfigPath(), clusters[1].KubeconfigPath(), clusters[2].KubeconfigPath())
	}
	if err := os.WriteFile(filepath.Join(dir, "terraform.tfvars"), []byte(vars), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) (string, error) {
		cmd := exec.Command(cli, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "TF_CLI_CONFIG_FILE="+cliConfig, serveEnv, "TF_IN_AUTOMATION=1", "CHECKPOINT_DISABLE=1", "KUBECONFIG=")
		start := time.Now()
		out, err := cmd.CombinedOutput()
		t.Logf("%s %s: %s", filepath.Base(cli), args[0], time.Since(start).Round(time.Millisecond))
		return string(out), err
	}
	mustRun := func(args ...string) string {
		t.Helper()
		out, err := run(args...)
		if err != nil {
			t.Fatalf("%s %s: %v\n%s", filepath.Base(cli), strings.Join(args, " "), err, out)
		}
		return out
	}
	mustRun("get", "-no-color")
	out := mustRun("apply", "-auto-approve", "-no-color", "-input=false")
	if !strings.Contains(out, "3 added") {
		t.Errorf("apply:\n%s", out)
	}
	lwsGVR := lwsv1.GroupVersion.WithResource("leaderworkersets")
	for i, c := range clusters {
		u, err := c.Dynamic().Resource(lwsGVR).Namespace("default").Get(context.Background(), "llama-70b", metav1.GetOptions{})
		if err != nil {
			t.Errorf("cluster %s: %v", names[i], err)
			continue
		}
		if got := u.GetLabels()["inference.example.com/cluster"]; got != strings.ReplaceAll(names[i], "_", "-") {
			t.Errorf("cluster %s holds the LeaderWorkerSet of %q", names[i], got)
		}
	}
	if out, err := run("plan", "-detailed-exitcode", "-no-color", "-input=false"); err != nil {
		t.Errorf("the plan after the apply is not empty (%v):\n%s", err, out)
	}
	mustRun("destroy", "-auto-approve", "-no-color", "-input=false")
	for i, c := range clusters {
		if _, err := c.Dynamic().Resource(lwsGVR).Namespace("default").Get(context.Background(), "llama-70b", metav1.GetOptions{}); err == nil {
			t.Errorf("cluster %s still holds the LeaderWorkerSet after destroy", names[i])
		}
	}
}
