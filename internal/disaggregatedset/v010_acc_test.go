package disaggregatedset_test

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/acctest"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/disaggregatedset"
)

// Tests of the DisaggregatedSet fields of LeaderWorkerSet v0.10.0 run on the NewerFields profile:
// the API server with the DisaggregatedSet CRD generated from internal/apis/disaggregatedset/v1.
// No DisaggregatedSet controller or webhook runs there (the v0.10.0 module cannot be fetched
// here), so these configurations do not wait for a rollout.

// v010Set is a set with the v0.10.0 fields: a placement policy, a Static prefill role and a decode
// role with the given scaling line and spec lines (replicas), and extra lines in spec.
func v010Set(name, decode, extra string, decodeSpec ...string) string {
	return fmt.Sprintf(`
resource "kubeinfer_disaggregatedset" "test" {
  wait_for_rollout = false
  metadata = {
    name      = %[1]q
    namespace = "default"
  }
  spec = {
    %[3]s
    placement_policy = { type = "ExclusiveSlice", topology = "topology.kubernetes.io/zone" }
    roles = [
      {
        name = "prefill"
        spec = {
          replicas = 2
          leader_worker_template = {
            worker_template = { spec = { containers = [{ name = "vllm", image = "vllm/vllm-openai:v0.11.0" }] } }
          }
        }
      },
      {
        name = "decode"
        %[2]s
        spec = {
          %[4]s
          leader_worker_template = {
            worker_template = { spec = { containers = [{ name = "vllm", image = "vllm/vllm-openai:v0.11.0" }] } }
          }
        }
      },
    ]
  }
}
`, name, decode, extra, strings.Join(decodeSpec, "\n"))
}

// setDecodeReplicas changes the decode role's replicas as another field manager would.
func setDecodeReplicas(t *testing.T, ds dynamic.ResourceInterface, name string, n int) {
	t.Helper()
	patch := []byte(fmt.Sprintf(`[{"op":"replace","path":"/spec/roles/1/spec/replicas","value":%d}]`, n))
	if _, err := ds.Patch(context.Background(), name, types.JSONPatchType, patch, metav1.PatchOptions{FieldManager: "kubectl-edit"}); err != nil {
		t.Fatal(err)
	}
}

// decodeReplicasIs checks the decode role's replicas on the server.
func decodeReplicasIs(ds dynamic.ResourceInterface, name string, want int64) resource.TestCheckFunc {
	return func(*terraform.State) error {
		u, err := ds.Get(context.Background(), name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		roles, _, _ := unstructured.NestedSlice(u.Object, "spec", "roles")
		if r, _, _ := unstructured.NestedInt64(roles[1].(map[string]any), "spec", "replicas"); r != want {
			return fmt.Errorf("decode replicas %d on the server, want %d", r, want)
		}
		return nil
	}
}

var decodeReplicasPath = tfjsonpath.New("spec").AtMapKey("roles").AtSliceIndex(1).AtMapKey("spec").AtMapKey("replicas")

// TestAccDisaggregatedSet_v010: create with the v0.10.0 fields (their CRD defaults planned),
// no-change plan, import; an External role whose replicas another manager changes plans empty
// and keeps that value through an apply; External -> Static (replicas written), Static ->
// External, External -> Static (replicas left to the default).
func TestAccDisaggregatedSet_v010(t *testing.T) {
	// The same RPCs as TestAccDisaggregatedSet_lifecycle, which every CLI runs; what this adds is
	// the v0.10 CRD's and another field manager's behaviour.
	acctest.FirstCLIOnly(t, "the v0.10.0 CRD and an autoscaler's replicas")
	const name = "acc-pd-v010"
	c := acctest.ClusterWith(t, acctest.NewerFields)
	ds := c.Dynamic().Resource(disaggregatedset.Kind.GVR()).Namespace("default")
	pc := acctest.ProviderConfigFor(c)
	externalRole := `scaling = { mode = "External" }`
	cfg := pc + v010Set(name, externalRole, "")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: cfg,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("spec").AtMapKey("slices"), knownvalue.Int64Exact(1)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("spec").AtMapKey("placement_policy").AtMapKey("type"), knownvalue.StringExact("ExclusiveSlice")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("spec").AtMapKey("roles").AtSliceIndex(1).AtMapKey("scaling").AtMapKey("mode"), knownvalue.StringExact("External")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("spec").AtMapKey("roles").AtSliceIndex(0).AtMapKey("scaling"), knownvalue.Null()),
					// Not sent: the CRD default.
					statecheck.ExpectKnownValue(addr, decodeReplicasPath, knownvalue.Int64Exact(1)),
				},
			},
			{Config: cfg, PlanOnly: true},
			{
				ResourceName:                         addr,
				ImportState:                          true,
				ImportStateVerify:                    true,
				ImportStateId:                        "default/" + name,
				ImportStateVerifyIdentifierAttribute: "id",
			},
			{ // another manager sets the External role's replicas: no drift
				PreConfig: func() { setDecodeReplicas(t, ds, name, 5) },
				Config:    cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectEmptyPlan(),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, decodeReplicasPath, knownvalue.Int64Exact(5)),
				},
				Check: decodeReplicasIs(ds, name, 5),
			},
			{ // an apply of another change leaves them alone
				Config: pc + v010Set(name, externalRole, "slices = 1"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectKnownValue(addr, decodeReplicasPath, knownvalue.Int64Exact(5)),
				}},
				Check: decodeReplicasIs(ds, name, 5),
			},
			{ // External -> Static: the configured replicas are planned and sent again
				Config: pc + v010Set(name, `scaling = { mode = "Static" }`, "slices = 1", "replicas = 3"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(addr, decodeReplicasPath, knownvalue.Int64Exact(3)),
				}},
				Check: decodeReplicasIs(ds, name, 3),
			},
			{ // Static -> External: replicas are known after apply (no longer sent)
				Config: cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
					plancheck.ExpectUnknownValue(addr, decodeReplicasPath),
				}},
			},
			{Config: cfg, PlanOnly: true},
			{ // External -> Static without replicas: the planned default sets back another manager's value
				PreConfig: func() { setDecodeReplicas(t, ds, name, 4) },
				Config:    pc + v010Set(name, `scaling = { mode = "Static" }`, ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectKnownValue(addr, decodeReplicasPath, knownvalue.Int64Exact(1)),
				}},
				Check: decodeReplicasIs(ds, name, 1),
			},
			{Config: pc + v010Set(name, `scaling = { mode = "Static" }`, ""), PlanOnly: true},
		},
	})
}

// TestAccDisaggregatedSet_v010PlanErrors: the v0.10.0 CRD and webhook rules fail the plan on the
// attribute.
func TestAccDisaggregatedSet_v010PlanErrors(t *testing.T) {
	pc := acctest.ProviderConfigFor(acctest.ClusterWith(t, acctest.NewerFields))
	const name = "acc-pd-v010-errors"
	static := `scaling = { mode = "Static" }`
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:      pc + v010Set(name, static, "slices = 101"),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)spec\.slices.*should\s+be\s+less\s+than\s+or\s+equal\s+to\s+100`),
			},
			{
				Config:      pc + v010Set(name, `scaling = { mode = "External" }`, "slices = 2"),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)spec\.slices.*not\s+supported\s+while\s+any\s+role\s+has\s+scaling\.mode:\s+External`),
			},
			{
				Config:      pc + strings.Replace(v010Set(name, static, ""), `topology = "topology.kubernetes.io/zone"`, "", 1),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)spec\.placement_policy\.topology.*topology\s+is\s+required\s+when\s+type\s+is\s+not\s+None`),
			},
			{
				Config:      pc + strings.Replace(v010Set(name, static, ""), `"ExclusiveSlice"`, `"Packed"`, 1),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)spec\.placement_policy\.type.*Unsupported\s+value`),
			},
			{
				Config:      pc + v010Set(name, `scaling = { mode = "Auto" }`, ""),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)spec\.roles\[1\]\.scaling\.mode.*Unsupported\s+value`),
			},
		},
	})
}

// TestAccDisaggregatedSet_v010FieldOnReleasedCRD: on the released v0.9.0 CRD, a v0.10.0 field the
// configuration sets fails the apply on its attribute, naming v0.10.0; nothing is created.
func TestAccDisaggregatedSet_v010FieldOnReleasedCRD(t *testing.T) {
	if os.Getenv("KUBEINFER_LWS_V010") == "1" {
		t.Skip("the assets serve the v0.10.0 CRDs (KUBEINFER_LWS_V010=1): there is no v0.9.0 CRD to refuse the field")
	}
	const name = "acc-pd-v010-released"
	pc := acctest.ProviderConfig(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             cleanedUp(t, name),
		Steps: []resource.TestStep{
			{
				Config:      pc + v010Set(name, `scaling = { mode = "Static" }`, "slices = 1", "replicas = 1"),
				ExpectError: regexp.MustCompile(`(?s)spec\.slices.*DisaggregatedSet\s+API\s+of\s+sigs\.k8s\.io/lws\s+v0\.10\.0`),
			},
		},
	})
}
