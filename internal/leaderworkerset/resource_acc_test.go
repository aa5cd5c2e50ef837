package leaderworkerset_test

import (
	"context"
	"fmt"
	"regexp"
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
	lwsv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/leaderworkerset/v1"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/leaderworkerset"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/leaderworkerset/lwsfixture"
	"k8s.io/utils/ptr"
)

func TestMain(m *testing.M) { acctest.Main(m) }

// The tests in this file run on the ReleasedLWS profile of the test cluster: the CRD,
// controller-manager and webhooks of sigs.k8s.io/lws v0.9.0, kube-controller-manager,
// kube-scheduler and KWOK nodes (8 nodes with 8 GPUs each in two zones, tainted
// nvidia.com/gpu; pods that request GPUs get the toleration from the API server's
// ExtendedResourceToleration admission plugin). Pods are really scheduled and turn Ready, so
// the rollout waits watch real rollouts. Each test destroys what it created.
//
// Tests that need the GPUs to themselves run first, one after another: those that fill every
// node, place groups on distinct nodes, compare a placement or rollout preview with the
// scheduler, label a node, list every object of the namespace, or set the test process's
// environment (t.Setenv). The others call runsBesideOthers and then run go test -parallel at a
// time.

// runsBesideOthers marks a test that can share the cluster: its groups use at most 16 of the
// 64 GPUs (lwsfixture.SmallGPU) or none, it names every object it reads, and what it checks
// does not depend on where the scheduler puts pods. Go runs such tests (t.Parallel) after the
// tests that did not call it, so they never run beside a test that needs the GPUs.
func runsBesideOthers(t *testing.T) {
	t.Helper()
	t.Parallel()
}

const addr = "kubeinfer_leaderworkerset.test"

// vllm is obj (lwsfixture.VLLM) as the resource kubeinfer_leaderworkerset.test, with the
// top-level attributes top (force_conflicts, manage_replicas, timeouts, ...).
func vllm(obj *lwsv1.LeaderWorkerSet, top ...string) string {
	return acctest.ObjectHCL(leaderworkerset.Kind.Node(), "kubeinfer_leaderworkerset", "test", obj, top...)
}

// lwsClient is the LeaderWorkerSet client of the ReleasedLWS cluster.
func lwsClient(t *testing.T) dynamic.ResourceInterface {
	t.Helper()
	return acctest.Cluster(t).Dynamic().Resource(leaderworkerset.Kind.GVR()).Namespace("default")
}

// TestAccLeaderWorkerSet_minimalVLLM: the plain vLLM configuration of the LWS docs (no field
// newer than the release) applies on the released LWS, every group turns Ready on the GPU
// nodes, the second plan is empty and import gives the same state, planned defaults included.
func TestAccLeaderWorkerSet_minimalVLLM(t *testing.T) {
	// The oldest Terraform's smoke run names it. Under the other CLIs TestAccLeaderWorkerSet_lifecycle
	// creates and plans the same vLLM configuration, and the migration and identity tests import.
	acctest.FirstCLIOnly(t, "the docs' vLLM configuration on the released controller")
	name := "acc-vllm-minimal"
	lwsClient(t)
	pc := acctest.ProviderConfig(t)
	cfg := pc + vllm(lwsfixture.VLLM(name, 2, 4))
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             controllerCleanedUp(t, name),
		Steps: []resource.TestStep{
			{
				Config: cfg,
				// The footprint is known at plan: 2 groups of 4 pods with 8 GPUs and a 1124Gi memory limit each.
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectKnownValue(addr, tfjsonpath.New("footprint"), knownvalue.ObjectPartial(map[string]knownvalue.Check{
						"pods_per_group": knownvalue.Int64Exact(4),
						"pods":           knownvalue.Int64Exact(8),
						"peak_pods":      knownvalue.Int64Exact(8),
						"requests":       knownvalue.MapPartial(map[string]knownvalue.Check{"nvidia.com/gpu": knownvalue.StringExact("64")}),
						"limits":         knownvalue.MapPartial(map[string]knownvalue.Check{"memory": knownvalue.StringExact("8992Gi")}),
					})),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("id"), knownvalue.StringExact("default/"+name)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("footprint").AtMapKey("peak_requests").AtMapKey("nvidia.com/gpu"), knownvalue.StringExact("64")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("spec").AtMapKey("leader_worker_template").AtMapKey("restart_policy"), knownvalue.StringExact("RecreateGroupOnPodRestart")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("spec").AtMapKey("startup_policy"), knownvalue.StringExact("LeaderCreated")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("spec").AtMapKey("rollout_strategy").AtMapKey("rolling_update_configuration").AtMapKey("max_unavailable"), knownvalue.StringExact("1")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("spec").AtMapKey("network_config").AtMapKey("subdomain_policy"), knownvalue.StringExact("Shared")),
					// Not in the released API: left out, they are null (the server's default), so a
					// configuration generated from the object never sets them.
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("spec").AtMapKey("group_identity"), knownvalue.Null()),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("spec").AtMapKey("group_replacement_policy"), knownvalue.Null()),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("status").AtMapKey("ready_replicas"), knownvalue.Int64Exact(2)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("status").AtMapKey("updated_replicas"), knownvalue.Int64Exact(2)),
				},
				Check: podsPlaced(t, name, 8, 8),
			},
			{Config: cfg, PlanOnly: true},
			{
				ResourceName:                         addr,
				ImportState:                          true,
				ImportStateVerify:                    true,
				ImportStateId:                        "default/" + name,
				ImportStateVerifyIdentifierAttribute: "id",
			},
		},
	})
}

func TestAccLeaderWorkerSet_lifecycle(t *testing.T) {
	runsBesideOthers(t)
	name := "acc-vllm"
	c := lwsClient(t)
	pc := acctest.ProviderConfig(t)
	v := func(image string, replicas int32, opts ...lwsfixture.Option) *lwsv1.LeaderWorkerSet {
		return lwsfixture.VLLM(name, replicas, 2, append([]lwsfixture.Option{lwsfixture.SmallGPU, lwsfixture.Image(image)}, opts...)...)
	}
	const v0, v1 = "vllm/vllm-openai:v0.11.0", "vllm/vllm-openai:v0.11.1"
	subGroups := func(l *lwsv1.LeaderWorkerSet) {
		l.Spec.LeaderWorkerTemplate.SubGroupPolicy = &lwsv1.SubGroupPolicy{SubGroupSize: ptr.To[int32](2)}
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             controllerCleanedUp(t, name),
		Steps: []resource.TestStep{
			{Config: pc + vllm(v(v0, 2))},
			{Config: pc + vllm(v(v0, 2)), PlanOnly: true},
			{ // update in place: a real rollout to the new image and a third group
				Config: pc + vllm(v(v1, 3)),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("spec").AtMapKey("replicas"), knownvalue.Int64Exact(3)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("status").AtMapKey("ready_replicas"), knownvalue.Int64Exact(3)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("status").AtMapKey("updated_replicas"), knownvalue.Int64Exact(3)),
				},
				Check: podImages(t, name, "vllm/vllm-openai:v0.11.1", 6),
			},
			{ // drift in a field the user set is detected and, with force_conflicts, reverted
				PreConfig: func() {
					patch := []byte(`{"spec":{"startupPolicy":"LeaderReady","leaderWorkerTemplate":{"size":3}}}`)
					if _, err := c.Patch(context.Background(), name, types.MergePatchType, patch, metav1.PatchOptions{FieldManager: "kubectl-edit"}); err != nil {
						t.Fatal(err)
					}
				},
				Config: pc + vllm(v(v1, 3), "force_conflicts = true"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("spec").AtMapKey("startup_policy"), knownvalue.StringExact("LeaderCreated")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("spec").AtMapKey("leader_worker_template").AtMapKey("size"), knownvalue.Int64Exact(2)),
				},
			},
			{ // deleted out of band: re-created
				PreConfig: func() {
					if err := c.Delete(context.Background(), name, metav1.DeleteOptions{}); err != nil {
						t.Fatal(err)
					}
				},
				Config: pc + vllm(v(v1, 3)),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionCreate),
				}},
			},
			{ // a field the webhook makes immutable plans a replacement instead of failing at apply
				Config: pc + vllm(v(v1, 3, subGroups)),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionDestroyBeforeCreate),
				}},
			},
			{Config: pc + vllm(v(v1, 3, subGroups)), PlanOnly: true},
		},
	})
}

// TestAccLeaderWorkerSet_newerFieldOnReleasedCRD: a field the released CRD does not declare
// fails the apply on that attribute, naming the API that has it, instead of the server's
// "field not declared in schema".
func TestAccLeaderWorkerSet_newerFieldOnReleasedCRD(t *testing.T) {
	runsBesideOthers(t)
	acctest.FirstCLIOnly(t, "the released CRD's answer to a newer field")
	name := "acc-vllm-newer"
	lwsClient(t)
	pc := acctest.ProviderConfig(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: pc + vllm(lwsfixture.VLLM(name, 2, 2, lwsfixture.SmallGPU, func(l *lwsv1.LeaderWorkerSet) {
					l.Spec.GroupIdentity = lwsv1.GroupIdentityHash
				})),
				ExpectError: regexp.MustCompile(`(?s)spec\.group_identity.*groupIdentity.*(not declare|newer)`),
			},
			{
				Config: pc + vllm(lwsfixture.VLLM(name, 2, 2, lwsfixture.SmallGPU, func(l *lwsv1.LeaderWorkerSet) {
					l.Spec.LeaderWorkerTemplate.MaxGroupRestarts = ptr.To[int32](3)
				})),
				ExpectError: regexp.MustCompile(`(?s)spec\.leader_worker_template\.max_group_restarts.*maxGroupRestarts.*(not declare|newer)`),
			},
		},
	})
}

// unsetReplicas leaves spec.replicas to the autoscaler (with manage_replicas = false).
func unsetReplicas(l *lwsv1.LeaderWorkerSet) { l.Spec.Replicas = nil }

func TestAccLeaderWorkerSet_autoscaledReplicas(t *testing.T) {
	runsBesideOthers(t)
	acctest.FirstCLIOnly(t, "an autoscaler's field ownership")
	name := "acc-vllm-hpa"
	c := lwsClient(t)
	pc := acctest.ProviderConfig(t)
	cfg := func(image string) string {
		return vllm(lwsfixture.VLLM(name, 0, 2, lwsfixture.SmallGPU, lwsfixture.Image(image), unsetReplicas), "manage_replicas = false")
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             controllerCleanedUp(t, name),
		Steps: []resource.TestStep{
			{Config: pc + cfg("vllm/vllm-openai:v0.11.0")},
			{ // the autoscaler scales through the scale subresource: no drift, no reset
				PreConfig: func() {
					patch := []byte(`{"spec":{"replicas":5}}`)
					if _, err := c.Patch(context.Background(), name, types.MergePatchType, patch, metav1.PatchOptions{FieldManager: "horizontal-pod-autoscaler"}, "scale"); err != nil {
						t.Fatal(err)
					}
				},
				Config:   pc + cfg("vllm/vllm-openai:v0.11.0"),
				PlanOnly: true,
			},
			{ // an unrelated update keeps the autoscaler's replicas, and waits for all 5 groups
				Config: pc + cfg("vllm/vllm-openai:v0.11.1"),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("spec").AtMapKey("replicas"), knownvalue.Int64Exact(5)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("status").AtMapKey("ready_replicas"), knownvalue.Int64Exact(5)),
				},
				Check: resource.ComposeTestCheckFunc(func(*terraform.State) error {
					u, err := c.Get(context.Background(), name, metav1.GetOptions{})
					if err != nil {
						return err
					}
					if r, _, _ := unstructured.NestedInt64(u.Object, "spec", "replicas"); r != 5 {
						return fmt.Errorf("replicas = %d, want 5 (the autoscaler's value)", r)
					}
					return nil
				}, podImages(t, name, "vllm/vllm-openai:v0.11.1", 10)),
			},
			{Config: pc + cfg("vllm/vllm-openai:v0.11.1"), PlanOnly: true},
		},
	})
}
