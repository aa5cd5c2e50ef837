package kube_test

import (
	"context"
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/acctest"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kube/kubetest"
)

// planCheckFunc runs a function as a plan check.
type planCheckFunc func() error

func (f planCheckFunc) CheckPlan(_ context.Context, _ plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	resp.Error = f()
}

// placementProvider is the provider block with a placement_preview setting ("" leaves it unset).
func placementProvider(kubeconfig, mode string) string {
	setting := ""
	if mode != "" {
		setting = fmt.Sprintf("\n  placement_preview = %q", mode)
	}
	return fmt.Sprintf("provider \"kubeinfer\" {\n  config_path = %q%s\n}\n", kubeconfig, setting)
}

// placementLWS is a LeaderWorkerSet of replicas groups of size pods; pod is the HCL of the pod
// spec's extra attributes and the container's resources.
func placementLWS(name string, replicas, size int, podExtra, resources string) string {
	return fmt.Sprintf(`
resource "kubeinfer_leaderworkerset" %[1]q {
  metadata = {
    name      = %[1]q
    namespace = "default"
  }
  spec = {
    replicas = %[2]d
    leader_worker_template = {
      size = %[3]d
      worker_template = {
        spec = {
          %[4]s
          containers = [{
            name      = "vllm"
            image     = "vllm/vllm-openai:v0.11.0"
            resources = %[5]s
          }]
        }
      }
    }
  }
  wait_for_rollout = false
}
`, name, replicas, size, podExtra, resources)
}

// The workloads of the placement tests on the test cluster's 8 GPU nodes (8 nvidia.com/gpu each,
// tainted nvidia.com/gpu) and 2 CPU nodes.
var (
	// 9 GPUs per pod: no node has them.
	placementTooBig = placementLWS("acc-placement-big", 2, 2, "",
		`{ limits = { "nvidia.com/gpu" = "9" }, requests = { "nvidia.com/gpu" = "9", cpu = "8" } }`)
	// Pinned to the GPU nodes, without GPUs, so without the toleration the admission plugin
	// would add for them.
	placementUntolerated = placementLWS("acc-placement-taint", 2, 1, `node_selector = { "node.kubernetes.io/instance-type" = "gpu-8x-h100" }`,
		`{ requests = { cpu = "100m" } }`)
	// Small CPU pods: they fit the CPU nodes.
	placementFits = placementLWS("acc-placement-fits", 1, 2, "", `{ requests = { cpu = "100m" } }`)
)

// placementWarnings returns the plan warnings of the placement preview recorded since the last call.
func placementWarnings(w *kubetest.Warnings) []string {
	var out []string
	for _, s := range w.TakePlan() {
		if strings.HasPrefix(s, "Placement preview") {
			out = append(out, s)
		}
	}
	return out
}

// expectPlacementWarnings checks that the plan warned about exactly the objects of want, each
// warning containing every part listed for its object.
func expectPlacementWarnings(w *kubetest.Warnings, want map[string][]string) error {
	return matchPlacementWarnings(placementWarnings(w), want)
}

// matchPlacementWarnings is expectPlacementWarnings on warnings already taken.
func matchPlacementWarnings(got []string, want map[string][]string) error {
	if len(got) != len(want) {
		return fmt.Errorf("%d placement warning(s), want %d:\n%s", len(got), len(want), kubetest.String(got))
	}
	for object, parts := range want {
		found := false
		for _, g := range got {
			all := strings.Contains(g, "default/"+object)
			for _, p := range parts {
				all = all && strings.Contains(g, p)
			}
			found = found || all
		}
		if !found {
			return fmt.Errorf("no placement warning about %s contains %q; got:\n%s", object, parts, kubetest.String(got))
		}
	}
	return nil
}

// TestAccPlacementPreview_leaderWorkerSet: plans of new LeaderWorkerSets. Off (the default), the
// plan makes no request and says nothing; with warn, one list of nodes and one of pods for three
// objects, a warning with the scheduler's reason on each object that cannot be placed (9 GPUs per
// pod: Insufficient nvidia.com/gpu, the GPU taint tolerated as the admission plugin makes it; no
// GPU but a GPU node selector: the untolerated taint) and none on the one that fits; with error,
// the same reason fails the plan; a plan of objects that fit says nothing.
func TestAccPlacementPreview_leaderWorkerSet(t *testing.T) {
	acctest.FirstCLIOnly(t, "the placement preview's requests and diagnostics")
	counter, kubeconfig := startCountingProxy(t, acctest.Cluster(t).RESTConfig())
	rec := &recorder{counter: counter}
	objects := placementTooBig + placementUntolerated + placementFits
	var w kubetest.Warnings
	firstPlan := func(name string, check func(p phase) error) resource.ConfigPlanChecks {
		return resource.ConfigPlanChecks{PostApplyPreRefresh: []plancheck.PlanCheck{planCheckFunc(func() error {
			return check(rec.snap(name))
		})}}
	}
	reset := func() { counter.snapshot(); w.TakePlan() }
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: w.Factories(acctest.ProviderFactories),
		Steps: []resource.TestStep{
			{
				PreConfig:          reset,
				Config:             placementProvider(kubeconfig, "") + objects,
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
				ConfigPlanChecks: firstPlan("off", func(p phase) error {
					if p.total() != 0 {
						return fmt.Errorf("placement_preview off: want no request\n%s", p)
					}
					return expectPlacementWarnings(&w, nil)
				}),
			},
			{
				PreConfig:          reset,
				Config:             placementProvider(kubeconfig, "warn") + objects,
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
				ConfigPlanChecks: firstPlan("warn", func(p phase) error {
					nodes, pods := p.counts["GET collection /api/v1/nodes"], p.counts["GET collection /api/v1/pods"]
					if nodes != 1 || pods != 1 || p.total() != 2 {
						return fmt.Errorf("placement_preview warn, 3 objects: want one list of nodes and one of pods\n%s", p)
					}
					return expectPlacementWarnings(&w, map[string][]string{
						"acc-placement-big": {"Placement preview: 0 of 2 groups can be placed", "group 0: 0/", "Insufficient nvidia.com/gpu", "group 1: 0/"},
						"acc-placement-taint": {"Placement preview: 0 of 2 groups can be placed",
							"node(s) didn't match Pod's node affinity/selector", "node(s) had untolerated taint(s)"},
					})
				}),
			},
			{
				Config:      placementProvider(kubeconfig, "error") + placementUntolerated + placementFits,
				PlanOnly:    true,
				ExpectError: kubetest.Wrapped("Placement preview: 0 of 2 groups can be placed", "untolerated taint(s)"),
			},
			{
				PreConfig:          reset,
				Config:             placementProvider(kubeconfig, "error") + placementFits,
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
				ConfigPlanChecks: firstPlan("fits", func(p phase) error {
					if p.counts["GET collection /api/v1/nodes"] != 1 {
						return fmt.Errorf("placement_preview error: want one list of nodes\n%s", p)
					}
					return expectPlacementWarnings(&w, nil)
				}),
			},
		},
	})
	for _, p := range rec.phases {
		t.Log(p)
	}
}

// TestAccPlacementPreview_skipped: without a cluster to read (a kubeconfig that does not exist),
// warn plans with a warning that the preview was skipped and why, and error fails the plan
// saying it lacks access.
func TestAccPlacementPreview_skipped(t *testing.T) {
	acctest.FirstCLIOnly(t, "the placement preview without access")
	missing := filepath.Join(t.TempDir(), "no-kubeconfig")
	var w kubetest.Warnings
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: w.Factories(acctest.ProviderFactories),
		Steps: []resource.TestStep{
			{
				PreConfig:          func() { w.TakePlan() },
				Config:             placementProvider(missing, "warn") + placementTooBig,
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
				ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPreRefresh: []plancheck.PlanCheck{planCheckFunc(func() error {
					for _, g := range w.TakePlan() {
						if strings.HasPrefix(g, "Placement preview skipped\nplacement preview skipped: ") && strings.Contains(g, "no-kubeconfig") {
							t.Logf("plan warning: %s", g)
							return nil
						}
					}
					return fmt.Errorf("no placement preview skipped warning naming the kubeconfig")
				})}},
			},
			{
				Config:      placementProvider(missing, "error") + placementTooBig,
				PlanOnly:    true,
				ExpectError: kubetest.Wrapped("Placement preview failed", `placement_preview = "error", and the preview could not read the cluster's nodes and pods`),
			},
		},
	})
}

// TestAccPlacementPreview_disaggregatedSet: a DisaggregatedSet whose decode role asks 9 GPUs per
// pod is flagged on that role's replicas; its prefill role, which fits, is not.
func TestAccPlacementPreview_disaggregatedSet(t *testing.T) {
	acctest.FirstCLIOnly(t, "the placement preview of DisaggregatedSet roles")
	counter, kubeconfig := startCountingProxy(t, acctest.Cluster(t).RESTConfig())
	var w kubetest.Warnings
	pod := func(gpus int) string {
		return fmt.Sprintf(`{
            spec = {
              containers = [{
                name      = "vllm"
                image     = "vllm/vllm-openai:v0.11.0"
                resources = { limits = { "nvidia.com/gpu" = "%[1]d" }, requests = { "nvidia.com/gpu" = "%[1]d", cpu = "8" } }
              }]
            }
          }`, gpus)
	}
	config := placementProvider(kubeconfig, "warn") + fmt.Sprintf(`
resource "kubeinfer_disaggregatedset" "test" {
  metadata = {
    name      = "acc-placement-ds"
    namespace = "default"
  }
  spec = {
    roles = [
      {
        name = "prefill"
        spec = {
          replicas               = 1
          leader_worker_template = { size = 2, worker_template = %s }
        }
      },
      {
        name = "decode"
        spec = {
          replicas               = 2
          leader_worker_template = { worker_template = %s }
        }
      },
    ]
  }
  wait_for_rollout = false
}
`, pod(8), pod(9))
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: w.Factories(acctest.ProviderFactories),
		Steps: []resource.TestStep{{
			PreConfig:          func() { counter.snapshot(); w.TakePlan() },
			Config:             config,
			PlanOnly:           true,
			ExpectNonEmptyPlan: true,
			ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPreRefresh: []plancheck.PlanCheck{planCheckFunc(func() error {
				got := placementWarnings(&w)
				if len(got) != 1 || !strings.HasPrefix(got[0], "Placement preview: role decode: 0 of 2 groups can be placed\nspec.roles[1].spec.replicas: ") ||
					!strings.Contains(got[0], "Insufficient nvidia.com/gpu") {
					return fmt.Errorf("want one placement warning on the decode role's replicas; got:\n%s", kubetest.String(got))
				}
				t.Logf("plan warning: %s", got[0])
				return nil
			})}},
		}},
	})
}

// TestAccPlacementPreview_forbidden: credentials the API server authenticates but that may not
// list nodes (a service account without any role) skip the preview with a warning that says so and
// quotes the server; the plan succeeds.
func TestAccPlacementPreview_forbidden(t *testing.T) {
	acctest.FirstCLIOnly(t, "the placement preview with credentials RBAC refuses")
	const sa = "acc-placement-no-rbac"
	c := acctest.Cluster(t)
	cs := c.Clientset()
	ctx := context.Background()
	if _, err := cs.CoreV1().ServiceAccounts("default").Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: sa}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cs.CoreV1().ServiceAccounts("default").Delete(context.Background(), sa, metav1.DeleteOptions{})
	})
	tok, err := cs.CoreV1().ServiceAccounts("default").CreateToken(ctx, sa, &authenticationv1.TokenRequest{}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rc := c.RESTConfig()
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	content := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: test
  cluster:
    server: %s
    certificate-authority-data: %s
users:
- name: sa
  user:
    token: %s
contexts:
- name: sa
  context: {cluster: test, user: sa}
current-context: sa
`, rc.Host, base64.StdEncoding.EncodeToString(rc.CAData), tok.Status.Token)
	if err := os.WriteFile(kubeconfig, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	var w kubetest.Warnings
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: w.Factories(acctest.ProviderFactories),
		Steps: []resource.TestStep{{
			PreConfig:          func() { w.TakePlan() },
			Config:             placementProvider(kubeconfig, "warn") + placementTooBig,
			PlanOnly:           true,
			ExpectNonEmptyPlan: true,
			ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPreRefresh: []plancheck.PlanCheck{planCheckFunc(func() error {
				for _, g := range w.TakePlan() {
					if strings.HasPrefix(g, "Placement preview skipped\nplacement preview skipped: cannot list nodes cluster-wide: the provider's credentials lack \"list\" on \"nodes\"") &&
						strings.Contains(g, `cannot list resource "nodes"`) {
						t.Logf("plan warning: %s", g)
						return nil
					}
				}
				return fmt.Errorf("no placement preview skipped warning saying the credentials lack list on nodes")
			})}},
		}},
	})
}

// placementFleet is a LeaderWorkerSet that fills the test cluster's 8 GPU nodes: 4 groups of a
// leader and a worker of 8 GPUs each. rollout is the HCL of its rollout_strategy ("" leaves it out).
func placementFleet(image, rollout string) string {
	return fmt.Sprintf(`
resource "kubeinfer_leaderworkerset" "fleet" {
  metadata = {
    name      = "acc-placement-update"
    namespace = "default"
  }
  spec = {
    replicas = 4
    %[2]s
    leader_worker_template = {
      size = 2
      worker_template = {
        spec = {
          containers = [{
            name      = "vllm"
            image     = %[1]q
            resources = { limits = { "nvidia.com/gpu" = "8" }, requests = { "nvidia.com/gpu" = "8", cpu = "8" } }
          }]
        }
      }
    }
  }
}
`, image, rollout)
}

// TestAccPlacementPreview_leaderWorkerSetUpdate: with every GPU node taken by the object's own 4
// groups, an image change with maxSurge 1 and maxUnavailable 0 needs a fifth group beside them
// before the controller replaces any: the plan says the rolling update stalls at group 4 (the new
// groups would fit if the old pods were freed at once). The same change with the defaults
// (maxSurge 0, maxUnavailable 1) replaces one group at a time in the room it frees: no warning.
func TestAccPlacementPreview_leaderWorkerSetUpdate(t *testing.T) {
	acctest.FirstCLIOnly(t, "the placement preview of a rolling update")
	cluster := acctest.Cluster(t)
	_, kubeconfig := startCountingProxy(t, cluster.RESTConfig())
	var w kubetest.Warnings
	const (
		oldImage = "vllm/vllm-openai:v0.11.0"
		newImage = "vllm/vllm-openai:v0.11.1"
		stalling = `rollout_strategy = { rolling_update_configuration = { max_surge = "1", max_unavailable = "0" } }`
	)
	check := func(want map[string][]string) resource.ConfigPlanChecks {
		return resource.ConfigPlanChecks{PostApplyPreRefresh: []plancheck.PlanCheck{planCheckFunc(func() error {
			got := placementWarnings(&w)
			// The warnings as the plan shows them (go test -v), for the guide's example.
			for _, g := range got {
				t.Logf("placement warning:\n%s", g)
			}
			return matchPlacementWarnings(got, want)
		})}}
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: w.Factories(acctest.ProviderFactories),
		Steps: []resource.TestStep{
			{
				PreConfig: func() { w.TakePlan() },
				Config:    placementProvider(kubeconfig, "warn") + placementFleet(oldImage, stalling),
			},
			{
				PreConfig:          func() { w.TakePlan() },
				Config:             placementProvider(kubeconfig, "warn") + placementFleet(newImage, stalling),
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
				ConfigPlanChecks: check(map[string][]string{"acc-placement-update": {
					"Placement preview: the rolling update stalls at group 4",
					"a surge group", "Insufficient nvidia.com/gpu", "0 of its 4 groups of 2 pod(s) would run the new template and 4 the previous one",
				}}),
			},
			{
				PreConfig:          func() { w.TakePlan() },
				Config:             placementProvider(kubeconfig, "warn") + placementFleet(newImage, ""),
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
				ConfigPlanChecks:   check(nil),
			},
			{
				// The real scheduler agrees: applied, the surge group stays Pending and no group
				// is replaced.
				Config: placementProvider(kubeconfig, "off") + strings.Replace(placementFleet(newImage, stalling), "\n  spec = {", "\n  wait_for_rollout = false\n  spec = {", 1),
				Check: func(*terraform.State) error {
					return expectStalledRollout(cluster, oldImage)
				},
			},
			{
				// With the defaults the same rollout goes on and finishes (the apply waits for it).
				Config: placementProvider(kubeconfig, "off") + placementFleet(newImage, ""),
			},
		},
	})
}

// expectStalledRollout waits 10 s and checks that the surge group's leader acc-placement-update-4
// is not bound and that groups 0-3 still run oldImage.
func expectStalledRollout(cluster *acctest.TestCluster, oldImage string) error {
	time.Sleep(10 * time.Second)
	pods, err := cluster.Clientset().CoreV1().Pods("default").List(context.Background(),
		metav1.ListOptions{LabelSelector: "leaderworkerset.sigs.k8s.io/name=acc-placement-update"})
	if err != nil {
		return err
	}
	surgePending, old := false, 0
	for _, p := range pods.Items {
		if p.Name == "acc-placement-update-4" && p.Spec.NodeName == "" {
			surgePending = true
		}
		if p.Spec.NodeName != "" && p.Spec.Containers[0].Image == oldImage {
			old++
		}
	}
	if !surgePending || old != 8 {
		return fmt.Errorf("want the surge group's leader pending and 8 pods of the old image bound; surge pending %v, old %d", surgePending, old)
	}
	return nil
}
