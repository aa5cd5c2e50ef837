package leaderworkerset_test

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/acctest"
	lwsv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/leaderworkerset/v1"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kube/kubetest"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/leaderworkerset/lwsfixture"
	lwsrules "github.com/kubeinfer/terraform-provider-kubeinfer/internal/leaderworkerset/rules"
)

// restartedAt declares the restartedAt stamp on both pod templates, as the docs tell users
// without actions (OpenTofu, Terraform before 1.14) to restart every group.
func restartedAt(stamp string) lwsfixture.Option {
	return func(l *lwsv1.LeaderWorkerSet) {
		for _, meta := range []*map[string]string{&l.Spec.LeaderWorkerTemplate.LeaderTemplate.Annotations, &l.Spec.LeaderWorkerTemplate.WorkerTemplate.Annotations} {
			*meta = map[string]string{lwsrules.RestartedAtAnnotation: stamp}
		}
	}
}

// podsStamped checks that every pod of the set carries the templates' stamp.
func podsStamped(t *testing.T, name, stamp string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		for _, p := range listPods(t, name) {
			if got := p.Annotations[lwsrules.RestartedAtAnnotation]; got != stamp {
				return fmt.Errorf("pod %s: %s = %q, want %q", p.Name, lwsrules.RestartedAtAnnotation, got, stamp)
			}
		}
		return nil
	}
}

// TestAccLeaderWorkerSet_restartByAnnotation: the restart without actions. A new value of the
// restartedAt stamp declared on both pod templates makes a new revision: the plan's rollout
// warning names the groups it recreates and the stamp as the changed field, the apply returns
// once every group was recreated (new pod UIDs, the new stamp on the pods) and is Ready, and
// the next plan is empty. It runs under the first CLI of each kind: OpenTofu has no actions, so
// this is its way to restart.
func TestAccLeaderWorkerSet_restartByAnnotation(t *testing.T) {
	runsBesideOthers(t)
	acctest.FirstOfEachKindOnly(t, "the controller's rolling restart from a template annotation")
	const name = "acc-restart-annotation"
	const stamp0, stamp1 = "2026-12-01T00:00:00Z", "2026-12-06T04:00:00Z"
	lwsClient(t)
	pc := acctest.ProviderConfig(t)
	cfg := func(stamp string) string {
		return pc + vllm(lwsfixture.VLLM(name, 2, 2, lwsfixture.SmallGPU, restartedAt(stamp)))
	}
	var before map[string]types.UID
	var w kubetest.Warnings
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: w.Factories(acctest.ProviderFactories),
		CheckDestroy:             controllerCleanedUp(t, name),
		Steps: []resource.TestStep{
			{Config: cfg(stamp0), Check: podsStamped(t, name, stamp0)},
			{
				PreConfig: func() { before = podUIDs(t, name); w.TakePlan() },
				Config:    cfg(stamp1),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
				}},
				Check: resource.ComposeTestCheckFunc(
					kubetest.PlanWarning(t, &w, "Rolling update of LeaderWorkerSet default/"+name,
						"Rolling update: groups 0-1 of default/"+name+" will be recreated, 1 at a time, highest index first",
						`changed: spec.leader_worker_template.leader_template.metadata.annotations["`+lwsrules.RestartedAtAnnotation+`"], `+
							`spec.leader_worker_template.worker_template.metadata.annotations["`+lwsrules.RestartedAtAnnotation+`"]`),
					podsRecreated(t, name, &before, 4, "0", "1"),
					podsStamped(t, name, stamp1),
				),
			},
			{Config: cfg(stamp1), PlanOnly: true},
		},
	})
}
