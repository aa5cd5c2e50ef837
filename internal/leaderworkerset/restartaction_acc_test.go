package leaderworkerset_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-plugin"
	goversion "github.com/hashicorp/go-version"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6/tf6server"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/acctest"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/leaderworkerset/lwsfixture"
	lwsrules "github.com/kubeinfer/terraform-provider-kubeinfer/internal/leaderworkerset/rules"
)

// restartTrigger is a terraform_data whose creation invokes the restart action label with
// the given action configuration (lifecycle action_trigger, Terraform 1.14+).
func restartTrigger(label, config string) string {
	return fmt.Sprintf(`
action "kubeinfer_leaderworkerset_restart" %[1]q {
  config {
    metadata = {
      name      = kubeinfer_leaderworkerset.test.metadata.name
      namespace = kubeinfer_leaderworkerset.test.metadata.namespace
    }
%[2]s
  }
}

resource "terraform_data" %[1]q {
  input = %[1]q
  lifecycle {
    action_trigger {
      events  = [after_create]
      actions = [action.kubeinfer_leaderworkerset_restart.%[1]s]
    }
  }
}
`, label, config)
}

// podUIDs are the pods of the LeaderWorkerSet name, by name (the group's pods keep their
// names when the group is recreated): Ready pods only, so a check fails while a group is down.
func podUIDs(t *testing.T, name string) map[string]types.UID {
	t.Helper()
	out := map[string]types.UID{}
	for _, p := range listPods(t, name) {
		if p.DeletionTimestamp == nil && acctest.PodReady(&p) {
			out[p.Name] = p.UID
		}
	}
	return out
}

// podsRecreated checks that, of the pods in before, exactly those of the groups listed (by
// group index label, from the names: <set>-<group> and <set>-<group>-<worker>) have a new
// UID, and that all want pods are Ready.
func podsRecreated(t *testing.T, name string, before *map[string]types.UID, want int, groups ...string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		now := podUIDs(t, name)
		if len(now) != want {
			return fmt.Errorf("%d Ready pods, want %d: %v", len(now), want, now)
		}
		restarted := map[string]bool{}
		for _, g := range groups {
			restarted[g] = true
		}
		var changed, kept []string
		for _, p := range listPods(t, name) {
			old, had := (*before)[p.Name]
			if !had {
				return fmt.Errorf("pod %s was not there before the action", p.Name)
			}
			g := p.Labels[labelGroupIndex]
			switch {
			case restarted[g] && old == p.UID:
				return fmt.Errorf("pod %s of restarted group %s kept its UID %s", p.Name, g, old)
			case !restarted[g] && old != p.UID:
				return fmt.Errorf("pod %s of group %s was recreated (UID %s -> %s), but only groups %v were to be", p.Name, g, old, p.UID, groups)
			case restarted[g]:
				changed = append(changed, p.Name)
			default:
				kept = append(kept, p.Name)
			}
		}
		sort.Strings(changed)
		sort.Strings(kept)
		t.Logf("recreated: %s; kept: %s", strings.Join(changed, " "), strings.Join(kept, " "))
		return nil
	}
}

// TestAccLeaderWorkerSet_restartAction: on the released controller, the restart action invoked
// from a lifecycle action_trigger restarts every group (a rolling restart through the templates'
// restartedAt stamp: every pod gets a new UID, Ready when the apply returns); the next plan is
// empty (the resource neither reports nor removes the stamp), and a later scale by the resource
// keeps the stamp and the running pods. TestAccLeaderWorkerSet_restartActionInvoke runs the
// action with -invoke, for the whole set and for one group.
func TestAccLeaderWorkerSet_restartAction(t *testing.T) {
	runsBesideOthers(t)
	if acctest.UnderOpenTofu() {
		t.Skip("OpenTofu has no actions: the restart action runs under Terraform 1.14 and later only")
	}
	const name = "acc-restart-action"
	lwsClient(t)
	pc := acctest.ProviderConfig(t)
	base := pc + vllm(lwsfixture.VLLM(name, 2, 2, lwsfixture.SmallGPU))
	all := restartTrigger("all", "")
	var before map[string]types.UID
	record := func() { before = podUIDs(t, name) }
	var took time.Time
	resource.Test(t, resource.TestCase{
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_14_0)},
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             controllerCleanedUp(t, name),
		Steps: []resource.TestStep{
			{Config: base},
			{
				PreConfig: func() { record(); took = time.Now() },
				Config:    base + all,
				Check: resource.ComposeTestCheckFunc(
					func(*terraform.State) error {
						t.Logf("whole-set restart: apply took %s", time.Since(took).Round(time.Millisecond))
						return nil
					},
					podsRecreated(t, name, &before, 4, "0", "1"),
				),
			},
			{
				// A later apply of the resource (a scale) keeps the stamp: nothing rolls.
				PreConfig: record,
				Config:    pc + vllm(lwsfixture.VLLM(name, 3, 2, lwsfixture.SmallGPU)) + all,
				Check:     stampKeptAndPodsKept(t, name, &before),
			},
		},
	})
}

// stampKeptAndPodsKept checks that the pods in before kept their UIDs and that both templates
// of the live object still carry the restart action's stamp.
func stampKeptAndPodsKept(t *testing.T, name string, before *map[string]types.UID) resource.TestCheckFunc {
	return func(*terraform.State) error {
		now := podUIDs(t, name)
		for pod, uid := range *before {
			if now[pod] != uid {
				return fmt.Errorf("pod %s was recreated by a scale (UID %s -> %s)", pod, uid, now[pod])
			}
		}
		u, err := lwsClient(t).Get(context.Background(), name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		for _, tmpl := range []string{"leaderTemplate", "workerTemplate"} {
			v, _, _ := unstructured.NestedString(u.Object, "spec", "leaderWorkerTemplate", tmpl, "metadata", "annotations", lwsrules.RestartedAtAnnotation)
			if v == "" {
				return fmt.Errorf("the apply removed %s from the %s", lwsrules.RestartedAtAnnotation, tmpl)
			}
		}
		return nil
	}
}

// TestAccLeaderWorkerSet_restartActionInvoke runs `terraform apply -invoke` (which
// terraform-plugin-testing v1.16 has no step for) against the provider served by the test
// process (TF_REATTACH_PROVIDERS, as terraform-plugin-testing attaches it): the whole set, then
// group 0; the pods are recreated and the next plan is empty.
func TestAccLeaderWorkerSet_restartActionInvoke(t *testing.T) {
	runsBesideOthers(t)
	if acctest.UnderOpenTofu() {
		t.Skip("OpenTofu has no actions: the restart action runs under Terraform 1.14 and later only")
	}
	tf := os.Getenv("TF_ACC_TERRAFORM_PATH")
	if tf == "" {
		t.Skip("needs TF_ACC_TERRAFORM_PATH (set by " + acctest.EnvCLIs + ")")
	}
	var ver struct {
		Version string `json:"terraform_version"`
	}
	if out, err := exec.Command(tf, "version", "-json").Output(); err != nil || json.Unmarshal(out, &ver) != nil {
		t.Fatalf("terraform version: %v", err)
	}
	if v, err := goversion.NewVersion(ver.Version); err != nil || v.LessThan(tfversion.Version1_14_0) {
		t.Skipf("Terraform %s has no actions (1.14 and later)", ver.Version)
	}
	const name = "acc-restart-invoke"
	lwsClient(t)
	dir := t.TempDir()
	cfg := "terraform {\n  required_providers {\n    kubeinfer = { source = \"kubeinfer/kubeinfer\" }\n  }\n}\n" + acctest.ProviderConfig(t) + vllm(lwsfixture.VLLM(name, 2, 2, lwsfixture.SmallGPU)) +
		restartTrigger("all", "") + restartTrigger("group0", "    groups = [0]\n")
	// Only the action blocks: no terraform_data, so the actions run only when invoked.
	cfg = regexp.MustCompile(`(?s)\nresource "terraform_data" "[^"]+" \{.*?\n\}\n`).ReplaceAllString(cfg, "\n")
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "TF_REATTACH_PROVIDERS="+serveProvider(t), "CHECKPOINT_DISABLE=1", "TF_IN_AUTOMATION=1", "TF_CLI_CONFIG_FILE=/dev/null")
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(tf, append([]string{"-chdir=" + dir}, args...)...)
		cmd.Env = env
		start := time.Now()
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("terraform %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		t.Logf("terraform %s: %s", strings.Join(args, " "), time.Since(start).Round(time.Millisecond))
		return string(out)
	}
	run("init", "-no-color")
	run("apply", "-auto-approve", "-no-color")
	t.Cleanup(func() { run("destroy", "-auto-approve", "-no-color") })
	for _, c := range []struct {
		action string
		groups []string
	}{{"all", []string{"0", "1"}}, {"group0", []string{"0"}}} {
		before := podUIDs(t, name)
		out := run("apply", "-auto-approve", "-no-color", "-invoke=action.kubeinfer_leaderworkerset_restart."+c.action)
		for _, line := range strings.Split(out, "\n") {
			if strings.HasPrefix(line, "Action ") {
				t.Log(line)
			}
		}
		if !strings.Contains(out, "Actions: 1 invoked.") {
			t.Fatalf("the action was not invoked:\n%s", out)
		}
		if err := podsRecreated(t, name, &before, 4, c.groups...)(nil); err != nil {
			t.Fatal(err)
		}
		if out := run("plan", "-no-color", "-detailed-exitcode"); !strings.Contains(out, "No changes.") {
			t.Fatalf("the plan after the action is not empty:\n%s", out)
		}
	}
}

// serveProvider serves the provider in the test process until the test ends and returns its
// TF_REATTACH_PROVIDERS value.
func serveProvider(t *testing.T) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	reattach := make(chan *plugin.ReattachConfig, 1)
	closed := make(chan struct{})
	server, err := acctest.ProviderFactories["kubeinfer"]()
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		_ = tf6server.Serve("registry.terraform.io/kubeinfer/kubeinfer", func() tfprotov6.ProviderServer { return server },
			tf6server.WithDebug(ctx, reattach, closed), tf6server.WithoutLogStderrOverride(), tf6server.WithLoggingSink(t))
	}()
	t.Cleanup(func() { cancel(); <-closed })
	var rc *plugin.ReattachConfig
	select {
	case rc = <-reattach:
	case <-time.After(30 * time.Second):
		t.Fatal("the provider server did not start")
	}
	raw, err := json.Marshal(map[string]any{"registry.terraform.io/kubeinfer/kubeinfer": map[string]any{
		"Protocol": string(rc.Protocol), "ProtocolVersion": rc.ProtocolVersion, "Pid": rc.Pid, "Test": rc.Test,
		"Addr": map[string]string{"Network": rc.Addr.Network(), "String": rc.Addr.String()},
	}})
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}
