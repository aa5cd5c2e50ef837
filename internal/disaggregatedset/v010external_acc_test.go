package disaggregatedset_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/acctest"
	lwsv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/leaderworkerset/v1"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/disaggregatedset"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kube/kubetest"
)

// externalSwitchSet is v010Set without placement, waiting for the rollout, with a decode role of
// 8 GPUs per group.
func externalSwitchSet(name, decode string, decodeSpec ...string) string {
	cfg := strings.Replace(v010Set(name, decode, "", decodeSpec...), "wait_for_rollout = false", `timeouts = { create = "2m", update = "2m" }`, 1)
	cfg = strings.Replace(cfg, `placement_policy = { type = "ExclusiveSlice", topology = "topology.kubernetes.io/zone" }`, "", 1)
	const container = `image = "vllm/vllm-openai:v0.11.0" }`
	i := strings.LastIndex(cfg, container) // the decode role's
	return cfg[:i] + `image = "vllm/vllm-openai:v0.11.0", resources = { limits = { "nvidia.com/gpu" = "8" } } }` + cfg[i+len(container):]
}

// TestAccDisaggregatedSet_v010ExternalSwitch: an autoscaler scales an External role to 4 groups
// through the role scaler's scale subresource; once they run (the scaler's status.replicas, which
// the controller writes), the refresh records the 4 running groups in the state and the footprint
// (the role's own replicas still say 1); switching the role to Static with replicas = 2 plans the
// real change, "4 running groups -> 2", with allow_group_restarts = false too (removing groups is
// scaling, not a restart: the guard's rule); the apply scales the role down to 2, and the next
// plan is empty.
func TestAccDisaggregatedSet_v010ExternalSwitch(t *testing.T) {
	skipUnlessV010Controller(t)
	acctest.SkipAfterFirstCLI(t)
	const name = "ext10"
	c := acctest.Cluster(t)
	pc := acctest.ProviderConfigFor(c)
	lwsRI := c.Dynamic().Resource(lwsv1.GroupVersion.WithResource("leaderworkersets")).Namespace("default")
	scRI := c.Dynamic().Resource(disaggregatedset.RoleScalerKind.GVR()).Namespace("default")
	dsRI := c.Dynamic().Resource(disaggregatedset.Kind.GVR()).Namespace("default")
	externalCfg := pc + externalSwitchSet(name, `scaling = { mode = "External" }`)
	guarded := strings.Replace(pc+externalSwitchSet(name, `scaling = { mode = "Static" }`, "replicas = 2"), `timeouts = {`, "allow_group_restarts = false\n  timeouts = {", 1)
	decodeGroups := tfjsonpath.New("footprint").AtMapKey("roles").AtMapKey("decode").AtMapKey("groups")
	decodeGPUs := tfjsonpath.New("footprint").AtMapKey("roles").AtMapKey("decode").AtMapKey("requests").AtMapKey("nvidia.com/gpu")
	var w kubetest.Warnings
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: w.Factories(acctest.ProviderFactories),
		Steps: []resource.TestStep{
			{Config: externalCfg, Check: lwsReplicas(t, lwsRI, name, "decode", 1)},
			{ // the autoscaler scales decode to 4; the refresh records them
				PreConfig: func() {
					patch := []byte(`{"spec":{"replicas":4}}`)
					if _, err := scRI.Patch(context.Background(), name+"-decode", types.MergePatchType, patch, metav1.PatchOptions{FieldManager: "hpa"}, "scale"); err != nil {
						t.Fatal(err)
					}
					err := wait.PollUntilContextTimeout(context.Background(), time.Second, time.Minute, true, func(ctx context.Context) (bool, error) {
						scaled := lwsReplicas(t, lwsRI, name, "decode", 4)(nil) == nil
						sc, err := scRI.Get(ctx, name+"-decode", metav1.GetOptions{})
						if err != nil {
							return false, nil //nolint:nilerr // polled again
						}
						running, _, _ := unstructured.NestedInt64(sc.Object, "status", "replicas")
						return scaled && running == 4, nil
					})
					if err != nil {
						t.Fatalf("the controller did not scale decode to 4: %v", err)
					}
				},
				Config:           externalCfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, decodeReplicasPath, knownvalue.Int64Exact(4)),
					statecheck.ExpectKnownValue(addr, decodeGroups, knownvalue.Int64Exact(4)),
					statecheck.ExpectKnownValue(addr, decodeGPUs, knownvalue.StringExact("32")),
				},
				Check: decodeReplicasIs(dsRI, name, 1), // the role's own value, which the controller ignores
			},
			{ // the guard lets removing groups through, with the warning
				PreConfig: func() { w.TakePlan() },
				Config:    guarded,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(addr, decodeReplicasPath, knownvalue.Int64Exact(2)),
					plancheck.ExpectKnownValue(addr, decodeGroups, knownvalue.Int64Exact(2)),
				}},
				Check: resource.ComposeAggregateTestCheckFunc(
					kubetest.PlanWarning(t, &w, "Role decode of DisaggregatedSet default/"+name+" leaves External scaling",
						"4 running groups -> 2: 2 groups of 8 GPUs removed"),
					lwsReplicas(t, lwsRI, name, "decode", 2),
				),
			},
			{Config: guarded, PlanOnly: true},
		},
	})
}
