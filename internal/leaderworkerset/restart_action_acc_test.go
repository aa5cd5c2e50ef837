package leaderworkerset_test

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/acctest"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/leaderworkerset"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/leaderworkerset/lwsfixture"
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
// restartedAt stamp: every pod gets a new UID) and then only group 1 (its leader deleted: its
// pods get new UIDs, group 0's keep theirs); the groups are Ready when the apply returns, and
// each step's next plan is empty (the resource neither reports nor removes the stamp), and a
// later scale by the resource keeps the stamp and the running pods.
func TestAccLeaderWorkerSet_restartAction(t *testing.T) {
	if os.Getenv("TF_ACC_PROVIDER_HOST") == "registry.opentofu.org" {
		t.Skip("OpenTofu has no actions: the restart action runs under Terraform 1.14 and later only")
	}
	const name = "acc-restart-action"
	lwsClient(t)
	pc := acctest.ProviderConfig(t)
	base := pc + vllm(lwsfixture.VLLM(name, 2, 2, lwsfixture.SmallGPU))
	all := restartTrigger("all", "")
	group1 := restartTrigger("group1", "    groups = [1]\n")
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
				PreConfig: func() { record(); took = time.Now() },
				Config:    base + all + group1,
				Check: resource.ComposeTestCheckFunc(
					func(*terraform.State) error {
						t.Logf("group 1 restart: apply took %s", time.Since(took).Round(time.Millisecond))
						return nil
					},
					podsRecreated(t, name, &before, 4, "1"),
				),
			},
			{
				// A later apply of the resource (a scale) keeps the stamp: nothing rolls.
				PreConfig: record,
				Config:    pc + vllm(lwsfixture.VLLM(name, 3, 2, lwsfixture.SmallGPU)) + all + group1,
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
			v, _, _ := unstructured.NestedString(u.Object, "spec", "leaderWorkerTemplate", tmpl, "metadata", "annotations", leaderworkerset.RestartedAtAnnotation)
			if v == "" {
				return fmt.Errorf("the apply removed %s from the %s", leaderworkerset.RestartedAtAnnotation, tmpl)
			}
		}
		return nil
	}
}
