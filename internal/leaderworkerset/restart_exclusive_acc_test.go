package leaderworkerset_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/acctest"
	lwsv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/leaderworkerset/v1"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kube/kubetest"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/leaderworkerset/lwsfixture"
)

// exclusiveTopology annotates the set with the exclusive-topology annotation on key.
func exclusiveTopology(key string) lwsfixture.Option {
	return func(l *lwsv1.LeaderWorkerSet) {
		l.Annotations = map[string]string{lwsv1.ExclusiveKeyAnnotationKey: key}
	}
}

// TestAccLeaderWorkerSet_exclusiveTopologyRestart: the controller copies the exclusive-topology
// annotation into the leader StatefulSet's pod template (constructLeaderStatefulSetApplyConfiguration,
// pkg/controllers/leaderworkerset_controller.go, lws v0.9.0), so adding it to a running set
// recreates its groups although no new revision is made. With allow_group_restarts = false the
// plan fails on the annotation; without the guard the plan warns which groups are recreated, and
// the apply recreates the group (every pod UID new), its pods in one zone as the annotation asks;
// the next plan is empty.
func TestAccLeaderWorkerSet_exclusiveTopologyRestart(t *testing.T) {
	// Not beside other tests: the pod webhook keeps every other group's pods out of the group's
	// zone (SetExclusiveAffinities, pkg/webhooks/pod_webhook.go, lws v0.9.0), theirs included.
	acctest.FirstCLIOnly(t, "the controller's restart from an annotation it copies into the pod templates")
	const name = "acc-exclusive-restart"
	const guard = `allow_group_restarts = false`
	lwsClient(t)
	pc := acctest.ProviderConfig(t)
	cfg := func(opts ...lwsfixture.Option) *lwsv1.LeaderWorkerSet {
		return lwsfixture.VLLM(name, 1, 2, append([]lwsfixture.Option{lwsfixture.SmallGPU}, opts...)...)
	}
	const key = `metadata.annotations["` + lwsv1.ExclusiveKeyAnnotationKey + `"]`
	var before map[string]types.UID
	var w kubetest.Warnings
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: w.Factories(acctest.ProviderFactories),
		CheckDestroy:             controllerCleanedUp(t, name),
		Steps: []resource.TestStep{
			{Config: pc + vllm(cfg(), guard)},
			{ // the guard refuses the annotation, on its path
				Config: pc + vllm(cfg(exclusiveTopology(acctest.ZoneLabel)), guard),
				ExpectError: kubetest.Wrapped("allow_group_restarts = false, and this change changes the pod templates the controller copies "+key+
					" into, which recreates group 0 of default/"+name, "(changed: "+key+")"),
			},
			{ // without the guard: warned, and the group is recreated
				PreConfig: func() { before = podUIDs(t, name); w.TakePlan() },
				Config:    pc + vllm(cfg(exclusiveTopology(acctest.ZoneLabel))),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
				}},
				Check: resource.ComposeTestCheckFunc(
					kubetest.PlanWarning(t, &w, "Rolling update of LeaderWorkerSet default/"+name,
						"Rolling update: group 0 of default/"+name+" will be recreated, 1 at a time, highest index first (max_unavailable = 1, max_surge = 0); "+
							key+" is copied by the controller into the pod templates of the leader StatefulSet and the worker StatefulSets, without a new revision",
						"changed: "+key),
					groupRecreatedInOneZone(t, name, &before, 2),
				),
			},
			{Config: pc + vllm(cfg(exclusiveTopology(acctest.ZoneLabel))), PlanOnly: true},
		},
	})
}

// groupRecreatedInOneZone checks that, when the apply returned (its wait covers a restart without
// a new revision: the leader StatefulSet's template and update revision), every pod of before
// was replaced by a Ready pod with a new UID carrying the exclusive-topology annotation, all want
// of them in one zone.
func groupRecreatedInOneZone(t *testing.T, name string, before *map[string]types.UID, want int) resource.TestCheckFunc {
	return func(*terraform.State) error {
		now := podUIDs(t, name)
		if len(now) != want {
			return fmt.Errorf("%d Ready pods when the apply returned, want %d: %v", len(now), want, now)
		}
		for pod, uid := range now {
			if (*before)[pod] == uid {
				return fmt.Errorf("pod %s kept its UID %s", pod, uid)
			}
		}
		nodes, err := acctest.Cluster(t).Clientset().CoreV1().Nodes().List(context.Background(), metav1.ListOptions{})
		if err != nil {
			return err
		}
		zone := map[string]string{}
		for _, n := range nodes.Items {
			zone[n.Name] = n.Labels[acctest.ZoneLabel]
		}
		zones := map[string]bool{}
		for _, p := range listPods(t, name) {
			if p.DeletionTimestamp != nil {
				continue
			}
			if got := p.Annotations[lwsv1.ExclusiveKeyAnnotationKey]; got != acctest.ZoneLabel {
				return fmt.Errorf("pod %s: %s = %q, want %q", p.Name, lwsv1.ExclusiveKeyAnnotationKey, got, acctest.ZoneLabel)
			}
			zones[zone[p.Spec.NodeName]] = true
		}
		if len(zones) != 1 {
			return fmt.Errorf("the group's pods are in zones %v, want one", zones)
		}
		return nil
	}
}
