package disaggregatedset_test

import (
	"context"
	"fmt"
	"regexp"
	"sort"
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
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	disaggv1 "sigs.k8s.io/lws/api/disaggregatedset/v1"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/acctest"
	lwsv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/leaderworkerset/v1"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/disaggregatedset"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kube/kubetest"
)

func TestMain(m *testing.M) { acctest.Main(m) }

// The tests run on the ReleasedLWS profile of the test cluster: the LeaderWorkerSet v0.9.0
// controller-manager runs the DisaggregatedSet controller and its validating webhook, the
// CRDs of the release include the DisaggregatedSet's, and KWOK's GPU nodes (8 nodes of 8
// nvidia.com/gpu, tainted) turn the pods Ready.

const addr = "kubeinfer_disaggregatedset.test"

// pair is a vLLM prefill/decode pair: one prefill group of a leader and a worker, and
// decodeReplicas single-pod decode groups, each pod with a whole GPU node (8 GPUs).
func pair(name, decodeImage string, decodeReplicas int) string {
	pod := func(role, image string) string {
		return fmt.Sprintf(`{
            metadata = { labels = { "app.kubernetes.io/component" = %[1]q } }
            spec = {
              containers = [{
                name    = "vllm"
                image   = %[2]q
                command = ["vllm", "serve", "meta-llama/Llama-3.1-70B-Instruct", "--tensor-parallel-size", "8", "--kv-transfer-config", "{\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_both\"}"]
                ports   = [{ name = "http", container_port = 8000 }]
                resources = {
                  limits   = { "nvidia.com/gpu" = "8", memory = "256Gi" }
                  requests = { "nvidia.com/gpu" = "8", memory = "256Gi", cpu = "32" }
                }
                readiness_probe = { http_get = { path = "/health", port = "8000" } }
              }]
            }
          }`, role, image)
	}
	return fmt.Sprintf(`
resource "kubeinfer_disaggregatedset" "test" {
  metadata = {
    name      = %[1]q
    namespace = "default"
  }
  spec = {
    roles = [
      {
        name = "prefill"
        spec = {
          replicas = 1
          leader_worker_template = {
            size            = 2
            worker_template = %[2]s
          }
        }
      },
      {
        name     = "decode"
        metadata = { labels = { tier = "decode" } }
        spec = {
          replicas = %[4]d
          leader_worker_template = {
            worker_template = %[3]s
          }
        }
      },
    ]
  }
}
`, name, pod("prefill", "vllm/vllm-openai:v0.11.0"), pod("decode", decodeImage), decodeReplicas)
}

// ownedSets returns the LeaderWorkerSets of the set, by role, and their revision labels.
func ownedSets(t *testing.T, name string) ([]*lwsv1.LeaderWorkerSet, error) {
	list, err := acctest.Cluster(t).Dynamic().Resource(lwsv1.GroupVersion.WithResource("leaderworkersets")).Namespace("default").
		List(context.Background(), metav1.ListOptions{LabelSelector: disaggv1.SetNameLabelKey + "=" + name})
	if err != nil {
		return nil, err
	}
	var out []*lwsv1.LeaderWorkerSet
	for i := range list.Items {
		var lws lwsv1.LeaderWorkerSet
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(list.Items[i].Object, &lws); err != nil {
			return nil, err
		}
		out = append(out, &lws)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// rolledOut checks that each role has exactly one LeaderWorkerSet, of one revision other than
// notRevision, with the role's replicas all ready and updated, and that the pods of the decode
// role run decodeImage. It returns the revision through rev.
func rolledOut(t *testing.T, name, decodeImage string, decodeReplicas int32, notRevision string, rev *string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		sets, err := ownedSets(t, name)
		if err != nil {
			return err
		}
		want := map[string]int32{"prefill": 1, "decode": decodeReplicas}
		if len(sets) != len(want) {
			return fmt.Errorf("%d LeaderWorkerSets, want one per role: %v", len(sets), names(sets))
		}
		revision := sets[0].Labels[disaggv1.RevisionLabelKey]
		for _, lws := range sets {
			r := lws.Labels[disaggv1.RoleLabelKey]
			if lws.Labels[disaggv1.RevisionLabelKey] != revision || revision == notRevision {
				return fmt.Errorf("LeaderWorkerSet %s has revision %q (want one revision, not %q)", lws.Name, lws.Labels[disaggv1.RevisionLabelKey], notRevision)
			}
			if *lws.Spec.Replicas != want[r] || lws.Status.ReadyReplicas != want[r] || lws.Status.UpdatedReplicas != want[r] {
				return fmt.Errorf("role %s: %s has %d replicas, %d ready, %d updated; want %d", r, lws.Name, *lws.Spec.Replicas, lws.Status.ReadyReplicas, lws.Status.UpdatedReplicas, want[r])
			}
		}
		pods, err := acctest.Cluster(t).Clientset().CoreV1().Pods("default").List(context.Background(),
			metav1.ListOptions{LabelSelector: disaggv1.SetNameLabelKey + "=" + name + "," + disaggv1.RoleLabelKey + "=decode"})
		if err != nil {
			return err
		}
		live := 0
		for _, p := range pods.Items {
			if p.DeletionTimestamp != nil {
				continue
			}
			live++
			if img := p.Spec.Containers[0].Image; img != decodeImage {
				return fmt.Errorf("decode pod %s runs %s, want %s", p.Name, img, decodeImage)
			}
		}
		if live != int(decodeReplicas) {
			return fmt.Errorf("%d decode pods, want %d", live, decodeReplicas)
		}
		if rev != nil {
			*rev = revision
		}
		return nil
	}
}

func names(sets []*lwsv1.LeaderWorkerSet) []string {
	var out []string
	for _, s := range sets {
		out = append(out, s.Name)
	}
	return out
}

// cleanedUp: destroy returned only once the LeaderWorkerSets, pods and Services of the set
// were gone.
func cleanedUp(t *testing.T, name string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		sets, err := ownedSets(t, name)
		if err != nil {
			return err
		}
		pods, err := acctest.Cluster(t).Clientset().CoreV1().Pods("default").List(context.Background(),
			metav1.ListOptions{LabelSelector: disaggv1.SetNameLabelKey + "=" + name})
		if err != nil {
			return err
		}
		services, err := setServices(t, name)
		if err != nil {
			return err
		}
		if len(sets) > 0 || len(pods.Items) > 0 || len(services) > 0 {
			return fmt.Errorf("destroy returned with %d LeaderWorkerSets, %d pods and %d Services (%v) of %s left",
				len(sets), len(pods.Items), len(services), services, name)
		}
		return nil
	}
}

// setServices lists the names of the headless Services the controller made for the set.
func setServices(t *testing.T, name string) ([]string, error) {
	list, err := acctest.Cluster(t).Clientset().CoreV1().Services("default").List(context.Background(),
		metav1.ListOptions{LabelSelector: disaggv1.SetNameLabelKey + "=" + name})
	if err != nil {
		return nil, err
	}
	var out []string
	for _, s := range list.Items {
		out = append(out, s.Name)
	}
	return out, nil
}

// hasServices: the controller made a Service per role (so the destroy check above is not
// vacuous).
func hasServices(t *testing.T, name string, roles int) resource.TestCheckFunc {
	return func(*terraform.State) error {
		services, err := setServices(t, name)
		if err != nil {
			return err
		}
		if len(services) < roles {
			return fmt.Errorf("want at least %d Services of %s, found %v", roles, name, services)
		}
		return nil
	}
}

// TestAccDisaggregatedSet_lifecycle: a prefill/decode pair comes up with both roles' groups
// Ready on the GPU nodes, plans empty and imports to the same state; a new decode image rolls
// both roles out to a new revision (the revision covers every role's template) and the wait
// returns when the old revision is gone; a change made out of band shows in the plan and is
// reverted; the data source reads it; destroy waits for the LeaderWorkerSets, pods and Services.
func TestAccDisaggregatedSet_lifecycle(t *testing.T) {
	name := "acc-pd"
	ds := acctest.Cluster(t).Dynamic().Resource(disaggregatedset.Kind.GVR()).Namespace("default")
	pc := acctest.ProviderConfig(t)
	v1, v2 := "vllm/vllm-openai:v0.11.0", "vllm/vllm-openai:v0.11.1"
	var firstRevision string
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             cleanedUp(t, name),
		Steps: []resource.TestStep{
			{
				Config: pc + pair(name, v1, 2),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("id"), knownvalue.StringExact("default/"+name)),
					// CRD defaults, planned.
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("spec").AtMapKey("roles").AtSliceIndex(1).AtMapKey("spec").AtMapKey("leader_worker_template").AtMapKey("size"), knownvalue.Int64Exact(1)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("spec").AtMapKey("roles").AtSliceIndex(0).AtMapKey("spec").AtMapKey("startup_policy"), knownvalue.StringExact("LeaderCreated")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("spec").AtMapKey("roles").AtSliceIndex(0).AtMapKey("spec").AtMapKey("leader_worker_template").AtMapKey("restart_policy"), knownvalue.StringExact("RecreateGroupOnPodRestart")),
					// No default the CRD does not declare.
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("spec").AtMapKey("roles").AtSliceIndex(0).AtMapKey("spec").AtMapKey("rollout_strategy"), knownvalue.Null()),
				},
				Check: resource.ComposeAggregateTestCheckFunc(rolledOut(t, name, v1, 2, "", &firstRevision), hasServices(t, name, 2)),
			},
			{Config: pc + pair(name, v1, 2), PlanOnly: true},
			{
				ResourceName:                         addr,
				ImportState:                          true,
				ImportStateVerify:                    true,
				ImportStateId:                        "default/" + name,
				ImportStateVerifyIdentifierAttribute: "id",
			},
			{ // the coordinated rollout: both roles move to a new revision, the old LeaderWorkerSets are gone
				Config: pc + pair(name, v2, 2),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
				}},
				Check: func(s *terraform.State) error { return rolledOut(t, name, v2, 2, firstRevision, nil)(s) },
			},
			{Config: pc + pair(name, v2, 2), PlanOnly: true},
			{ // drift: a role scaled out of band shows in the plan and is set back
				PreConfig: func() {
					patch := []byte(`[{"op":"replace","path":"/spec/roles/1/spec/replicas","value":1}]`)
					if _, err := ds.Patch(context.Background(), name, types.JSONPatchType, patch, metav1.PatchOptions{FieldManager: "kubectl-edit"}); err != nil {
						t.Fatal(err)
					}
				},
				Config: pc + pair(name, v2, 2),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(addr, tfjsonpath.New("spec").AtMapKey("roles").AtSliceIndex(1).AtMapKey("spec").AtMapKey("replicas"), knownvalue.Int64Exact(2)),
				}},
				Check: func(s *terraform.State) error {
					u, err := ds.Get(context.Background(), name, metav1.GetOptions{})
					if err != nil {
						return err
					}
					roles, _, _ := unstructured.NestedSlice(u.Object, "spec", "roles")
					if r, _, _ := unstructured.NestedInt64(roles[1].(map[string]any), "spec", "replicas"); r != 2 {
						return fmt.Errorf("decode replicas %d after the apply, want 2", r)
					}
					return rolledOut(t, name, v2, 2, "", nil)(s)
				},
			},
			{ // the data source reads the set with the same schema
				Config: pc + pair(name, v2, 2) + `
data "kubeinfer_disaggregatedset" "test" {
  metadata   = { name = kubeinfer_disaggregatedset.test.metadata.name, namespace = "default" }
  depends_on = [kubeinfer_disaggregatedset.test]
}
`,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("data.kubeinfer_disaggregatedset.test", tfjsonpath.New("spec").AtMapKey("roles").AtSliceIndex(1).AtMapKey("name"), knownvalue.StringExact("decode")),
					statecheck.ExpectKnownValue("data.kubeinfer_disaggregatedset.test", tfjsonpath.New("spec").AtMapKey("roles").AtSliceIndex(1).AtMapKey("metadata").AtMapKey("labels").AtMapKey("tier"), knownvalue.StringExact("decode")),
				},
			},
		},
	})
}

// TestAccDisaggregatedSet_planErrors: the CRD's, the webhook's and the LeaderWorkerSet rules
// fail the plan on the attribute, without an object being created.
func TestAccDisaggregatedSet_planErrors(t *testing.T) {
	pc := acctest.ProviderConfig(t)
	base := pair("acc-pd-errors", "vllm/vllm-openai:v0.11.0", 2)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:      pc + strings.Replace(base, "replicas = 2", "replicas = 0", 1),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)replicas\s+must\s+be\s+zero\s+for\s+all\s+(non-External\s+)?roles\s+or\s+non-zero\s+for\s+all\s+(non-External\s+)?roles`),
			},
			{
				Config:      pc + strings.Replace(base, `name     = "decode"`, `name     = "prefill"`, 1),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)spec\.roles\[1\].*Duplicate value`),
			},
			{
				Config:      pc + strings.Replace(base, `container_port = 8000`, `container_port = 80000`, 1),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)spec\.roles\[0\]\.spec\.leader_worker_template\.worker_template\.spec\.containers\[0\]\.ports\[0\]\.container_port`),
			},
			{
				Config: pc + strings.Replace(base, "replicas = 1", `replicas = 1
          rollout_strategy = { rolling_update_configuration = { partition = 1 } }`, 1),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)partition is not supported by\s+DisaggregatedSet`),
			},
		},
	})
}

// TestAccDisaggregatedSet_unschedulable: when the scheduler cannot place a role's groups, the
// wait times out with each role's progress, the groups not ready and the scheduler's reason. The
// create's timeout is an error (a pipeline can tell): the set is recorded tainted, the next plan
// replaces it, and that create's timeout is an error again.
func TestAccDisaggregatedSet_unschedulable(t *testing.T) {
	acctest.FirstCLIOnly(t, "the scheduler leaving groups pending")
	const name = "acc-pd-16gpu"
	pc := acctest.ProviderConfig(t)
	cfg := pc + strings.Replace(strings.ReplaceAll(pair(name, "vllm/vllm-openai:v0.11.0", 1), `"nvidia.com/gpu" = "8"`, `"nvidia.com/gpu" = "16"`),
		"  spec = {\n    roles", "  timeouts = { create = \"8s\", update = \"6s\" }\n  spec = {\n    roles", 1)
	want := `(?s)timed out waiting for the rollout of the roles: .*role decode: 0 of 1 groups ready.*Role decode \(LeaderWorkerSet acc-pd-16gpu-[0-9a-f]{8}-decode\): Groups not ready:.*Insufficient nvidia\.com/gpu`
	var warnings kubetest.Warnings
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: warnings.Factories(acctest.ProviderFactories),
		CheckDestroy:             cleanedUp(t, name),
		Steps: []resource.TestStep{
			{
				Config:      cfg,
				ExpectError: regexp.MustCompile(want),
			},
			{ // the failed create tainted the set: the next plan replaces it
				Config: cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionDestroyBeforeCreate),
				}},
				ExpectError: regexp.MustCompile(`(?s)timed out waiting for the rollout of the roles`),
			},
		},
	})
}
