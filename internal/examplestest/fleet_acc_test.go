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

// fleetNames are the clusters of examples/fleet.
var fleetNames = []string{"us-east", "eu-west", "ap-south"}

var lwsGVR = lwsv1.GroupVersion.WithResource("leaderworkersets")

// fleet is a copy of examples/fleet run by the CLI under test against three API servers (the
// API-server-only profile: the CRDs, no controllers, shared by the fleet tests, each of which
// destroys what it applied). The provider runs as users run the release binary
// (acctest.ProviderBinaryDir): each provider instance is its own process, configured for its
// cluster.
type fleet struct {
	t                    *testing.T
	cli, cliConfig, work string
	serveEnv             string
	clusters             []*acctest.TestCluster
}

func newFleet(t *testing.T, tofu bool) *fleet {
	t.Helper()
	cli := os.Getenv("TF_ACC_TERRAFORM_PATH")
	if cli == "" {
		t.Skip("TF_ACC_TERRAFORM_PATH is not set")
	}
	root, err := acctest.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	host := "registry.terraform.io"
	if tofu {
		host = "registry.opentofu.org"
	}
	start := time.Now()
	clusters := acctest.ClustersNamed(t, acctest.NewerFields, fleetNames...)
	t.Logf("3 API servers ready in %s", time.Since(start).Round(time.Millisecond))

	f := &fleet{t: t, cli: cli, work: t.TempDir(), clusters: clusters}
	var bin string
	bin, f.serveEnv = acctest.ProviderBinaryDir(t)
	f.cliConfig = filepath.Join(f.work, "cli.tfrc")
	if err := os.WriteFile(f.cliConfig, []byte(fmt.Sprintf("provider_installation {\n  dev_overrides {\n    %q = %q\n  }\n  direct {}\n}\n",
		host+"/kubeinfer/kubeinfer", bin)), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("cp", "-r", filepath.Join(root, "examples", "fleet"), filepath.Join(f.work, "fleet")).CombinedOutput(); err != nil {
		t.Fatalf("copying examples/fleet: %v\n%s", err, out)
	}
	return f
}

// writeVars writes the flavour's terraform.tfvars: the clusters' kubeconfigs, and no wait for
// groups (no controller runs).
func (f *fleet) writeVars(flavour string) {
	f.t.Helper()
	var vars string
	if flavour == "opentofu" {
		var b strings.Builder
		b.WriteString("clusters = {\n")
		for i, n := range fleetNames {
			fmt.Fprintf(&b, "  %q = { config_path = %q }\n", n, f.clusters[i].KubeconfigPath())
		}
		b.WriteString("}\nwait_for_rollout = false\n")
		vars = b.String()
	} else {
		vars = fmt.Sprintf("kubeconfigs = { us_east = %q, eu_west = %q, ap_south = %q }\nwait_for_rollout = false\n",
			f.clusters[0].KubeconfigPath(), f.clusters[1].KubeconfigPath(), f.clusters[2].KubeconfigPath())
	}
	if err := os.WriteFile(filepath.Join(f.work, "fleet", flavour, "terraform.tfvars"), []byte(vars), 0o644); err != nil {
		f.t.Fatal(err)
	}
}

// run runs the CLI in the flavour's folder.
func (f *fleet) run(flavour string, args ...string) (string, error) {
	cmd := exec.Command(f.cli, args...)
	cmd.Dir = filepath.Join(f.work, "fleet", flavour)
	cmd.Env = append(os.Environ(), "TF_CLI_CONFIG_FILE="+f.cliConfig, f.serveEnv, "TF_IN_AUTOMATION=1", "CHECKPOINT_DISABLE=1", "KUBECONFIG=")
	start := time.Now()
	out, err := cmd.CombinedOutput()
	f.t.Logf("%s %s (%s): %s", filepath.Base(f.cli), args[0], flavour, time.Since(start).Round(time.Millisecond))
	return string(out), err
}

func (f *fleet) mustRun(flavour string, args ...string) string {
	f.t.Helper()
	out, err := f.run(flavour, args...)
	if err != nil {
		f.t.Fatalf("%s %s (%s): %v\n%s", filepath.Base(f.cli), strings.Join(args, " "), flavour, err, out)
	}
	return out
}

// checkApplied checks that each cluster holds its own LeaderWorkerSet.
func (f *fleet) checkApplied() {
	f.t.Helper()
	for i, c := range f.clusters {
		u, err := c.Dynamic().Resource(lwsGVR).Namespace("default").Get(context.Background(), "llama-70b", metav1.GetOptions{})
		if err != nil {
			f.t.Errorf("cluster %s: %v", fleetNames[i], err)
			continue
		}
		if got := u.GetLabels()["inference.example.com/cluster"]; got != fleetNames[i] {
			f.t.Errorf("cluster %s holds the LeaderWorkerSet of %q", fleetNames[i], got)
		}
	}
}

// checkDestroyed checks that no cluster holds the LeaderWorkerSet.
func (f *fleet) checkDestroyed() {
	f.t.Helper()
	for i, c := range f.clusters {
		if _, err := c.Dynamic().Resource(lwsGVR).Namespace("default").Get(context.Background(), "llama-70b", metav1.GetOptions{}); err == nil {
			f.t.Errorf("cluster %s still holds the LeaderWorkerSet after destroy", fleetNames[i])
		}
	}
}

// TestAccExample_fleet applies examples/fleet to three API servers: under OpenTofu the
// opentofu/ flavour (provider for_each), under the first Terraform CLI the terraform/ flavour
// (a module call per aliased provider). Each cluster gets its own LeaderWorkerSet, a second
// plan is empty, and destroy removes them all.
func TestAccExample_fleet(t *testing.T) {
	tofu := acctest.UnderOpenTofu()
	if !tofu && !acctest.IsFirstCLI() {
		t.Skip("the Terraform flavour runs under the first CLI, the OpenTofu flavour under OpenTofu")
	}
	flavour := "terraform"
	if tofu {
		flavour = "opentofu"
	}
	f := newFleet(t, tofu)
	f.writeVars(flavour)
	f.mustRun(flavour, "get", "-no-color")
	out := f.mustRun(flavour, "apply", "-auto-approve", "-no-color", "-input=false")
	if !strings.Contains(out, "3 added") {
		t.Errorf("apply:\n%s", out)
	}
	f.checkApplied()
	if out, err := f.run(flavour, "plan", "-detailed-exitcode", "-no-color", "-input=false"); err != nil {
		t.Errorf("the plan after the apply is not empty (%v):\n%s", err, out)
	}
	f.mustRun(flavour, "destroy", "-auto-approve", "-no-color", "-input=false")
	f.checkDestroyed()
}
