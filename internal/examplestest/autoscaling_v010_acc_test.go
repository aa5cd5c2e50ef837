package examplestest

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/config"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/acctest"
	disaggv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/disaggregatedset/v1"
	lwsv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/leaderworkerset/v1"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/disaggregatedset"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kube/kubetest"
)

// TestAccExample_disaggregatedAutoscalingSwitch applies examples/disaggregated-autoscaling on the
// LeaderWorkerSet v0.10.0 controller (KUBEINFER_LWS_V010=1, as the DisaggregatedSet tests of that
// controller): the decode role is External and its role scaler data source reads the scaler; an
// autoscaler scales it to 3 groups through the scale subresource and the refresh records them;
// switching decode to Static with 2 groups warns with the real change from the running groups,
// the data source is no longer read (its count is 0) and the apply succeeds; the next plan is
// empty. Switching back to External keeps the 2 groups, the data source reads the scaler again,
// and the next plan is empty.
func TestAccExample_disaggregatedAutoscalingSwitch(t *testing.T) {
	if os.Getenv("KUBEINFER_LWS_V010") != "1" {
		t.Skip("set KUBEINFER_LWS_V010=1 with an assets folder running the LeaderWorkerSet v0.10.0 controller-manager")
	}
	acctest.SkipAfterFirstCLI(t)
	const set = "llama-70b"
	cfg := exampleConfig(t, "disaggregated-autoscaling")
	dyn := acctest.Cluster(t).Dynamic()
	scRI := dyn.Resource(disaggregatedset.RoleScalerKind.GVR()).Namespace("default")
	lwsRI := dyn.Resource(lwsv1.GroupVersion.WithResource("leaderworkersets")).Namespace("default")
	static := config.Variables{"decode_scaling": config.StringVariable("Static"), "decode_replicas": config.IntegerVariable(2)}
	const setAddr, scalerAddr = "kubeinfer_disaggregatedset.llama", "data.kubeinfer_disaggregatedset_role_scaler.decode"
	var w kubetest.Warnings
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: w.Factories(acctest.ProviderFactories),
		Steps: []resource.TestStep{
			{
				Config: cfg,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(scalerAddr+"[0]", tfjsonpath.New("metadata").AtMapKey("name"), knownvalue.StringExact(set+"-decode")),
					statecheck.ExpectKnownOutputValueAtPath("decode_scale_target", tfjsonpath.New("kind"), knownvalue.StringExact("DisaggregatedSetRoleScaler")),
					statecheck.ExpectKnownOutputValue("decode_groups", knownvalue.Int64Exact(1)),
				},
				Check: decodeGroups(lwsRI, set, 1),
			},
			{ // the autoscaler scales decode to 3; the refresh records them (the output), and the set does not change
				PreConfig: func() {
					patch := []byte(`{"spec":{"replicas":3}}`)
					if _, err := scRI.Patch(context.Background(), set+"-decode", types.MergePatchType, patch, metav1.PatchOptions{FieldManager: "hpa"}, "scale"); err != nil {
						t.Fatal(err)
					}
					// The refresh records the groups that run: the scaler's status, which the controller
					// writes once the LeaderWorkerSet has them.
					err := wait.PollUntilContextTimeout(context.Background(), time.Second, time.Minute, true, func(ctx context.Context) (bool, error) {
						scaled := decodeGroups(lwsRI, set, 3)(nil) == nil
						sc, err := scRI.Get(ctx, set+"-decode", metav1.GetOptions{})
						if err != nil {
							return false, nil //nolint:nilerr // polled again
						}
						running, _, _ := unstructured.NestedInt64(sc.Object, "status", "replicas")
						return scaled && running == 3, nil
					})
					if err != nil {
						t.Fatalf("the controller did not scale decode to 3: %v", err)
					}
				},
				Config: cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(setAddr, plancheck.ResourceActionNoop),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownOutputValue("decode_groups", knownvalue.Int64Exact(3)),
				},
			},
			{ // back to Static: the plan says the real change; the data source is not read any more
				PreConfig:       func() { w.TakePlan() },
				Config:          cfg,
				ConfigVariables: static,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(setAddr, plancheck.ResourceActionUpdate),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownOutputValue("decode_groups", knownvalue.Int64Exact(2)),
				},
				Check: resource.ComposeAggregateTestCheckFunc(
					kubetest.PlanWarning(t, &w, "Role decode of DisaggregatedSet default/"+set+" leaves External scaling",
						"3 running groups -> 2: 1 group of 8 GPUs removed"),
					func(s *terraform.State) error { // count = 0: the data source is not read, the output is null
						if o := s.RootModule().Outputs["decode_scale_target"]; o != nil && o.Value != nil {
							return fmt.Errorf("decode_scale_target is %v after the switch to Static", o.Value)
						}
						for addr := range s.RootModule().Resources {
							if strings.HasPrefix(addr, scalerAddr) {
								return fmt.Errorf("%s is still in the state after the switch to Static", addr)
							}
						}
						return nil
					},
					decodeGroups(lwsRI, set, 2),
				),
			},
			{Config: cfg, ConfigVariables: static, PlanOnly: true},
			{ // and back to External: the controller seeds the scaler with the 2 groups, the data source is read again after the apply
				Config: cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(setAddr, plancheck.ResourceActionUpdate),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(scalerAddr+"[0]", tfjsonpath.New("metadata").AtMapKey("name"), knownvalue.StringExact(set+"-decode")),
					statecheck.ExpectKnownOutputValueAtPath("decode_scale_target", tfjsonpath.New("kind"), knownvalue.StringExact("DisaggregatedSetRoleScaler")),
					statecheck.ExpectKnownOutputValue("decode_groups", knownvalue.Int64Exact(2)),
				},
				Check: decodeGroups(lwsRI, set, 2),
			},
			{Config: cfg, PlanOnly: true},
		},
	})
}

// decodeGroups checks that the set's decode LeaderWorkerSet (one: the example has one slice and
// the switch rolls nothing) has want groups.
func decodeGroups(lwsRI dynamic.ResourceInterface, set string, want int64) resource.TestCheckFunc {
	return func(*terraform.State) error {
		l, err := lwsRI.List(context.Background(), metav1.ListOptions{
			LabelSelector: disaggv1.SetNameLabelKey + "=" + set + "," + disaggv1.RoleLabelKey + "=decode",
		})
		if err != nil {
			return err
		}
		if len(l.Items) != 1 {
			return fmt.Errorf("%d decode LeaderWorkerSets, want 1", len(l.Items))
		}
		replicas, _, _ := unstructured.NestedInt64(l.Items[0].Object, "spec", "replicas")
		if replicas != want {
			return fmt.Errorf("decode LeaderWorkerSet %s has %d groups, want %d", l.Items[0].GetName(), replicas, want)
		}
		return nil
	}
}
