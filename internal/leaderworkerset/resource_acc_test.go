package leaderworkerset_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/acctest"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/leaderworkerset"
)

func TestMain(m *testing.M) { acctest.Main(m) }

const addr = "kubeinfer_leaderworkerset.test"

// vllm is a realistic multi-node vLLM deployment: leader and workers with GPUs, /dev/shm as a
// memory emptyDir, zone spreading, a readiness probe and the Hugging Face token from a Secret.
func vllm(name string, opts ...string) string {
	o := map[string]string{"image": "vllm/vllm-openai:v0.11.0", "replicas": "2", "top": "", "extra_spec": ""}
	for _, kv := range opts {
		k, v, _ := strings.Cut(kv, "=")
		o[k] = v
	}
	return fmt.Sprintf(`
resource "kubeinfer_leaderworkerset" "test" {
  %[4]s
  metadata = {
    name      = %[1]q
    namespace = "default"
    labels    = { app = "vllm" }
  }
  spec = {
    replicas = %[3]s
    %[5]s
    leader_worker_template = {
      size = 4
      leader_template = {
        metadata = { labels = { role = "leader" } }
        spec = {
          containers = [{
            name    = "vllm-leader"
            image   = %[2]q
            command = ["sh", "-c", "bash /vllm-workspace/examples/online_serving/multi-node-serving.sh leader --ray_cluster_size=$(LWS_GROUP_SIZE); python3 -m vllm.entrypoints.openai.api_server --port 8080 --model meta-llama/Meta-Llama-3.1-405B-Instruct --tensor-parallel-size 8 --pipeline_parallel_size 2"]
            env = [{
              name = "HF_TOKEN"
              value_from = { secret_key_ref = { name = "hf-token", key = "token" } }
            }]
            ports = [{ container_port = 8080 }, { name = "metrics", container_port = 8081, protocol = "TCP" }]
            resources = {
              limits   = { "nvidia.com/gpu" = "8", memory = "1124Gi", "ephemeral-storage" = "800Gi" }
              requests = { "nvidia.com/gpu" = "8", "ephemeral-storage" = "800Gi", cpu = "125" }
            }
            readiness_probe = {
              tcp_socket            = { port = "8080" }
              initial_delay_seconds = 15
              period_seconds        = 10
            }
            volume_mounts = [{ mount_path = "/dev/shm", name = "dshm" }]
          }]
          topology_spread_constraints = [{
            max_skew           = 1
            topology_key       = "topology.kubernetes.io/zone"
            when_unsatisfiable = "ScheduleAnyway"
            label_selector     = { match_labels = { app = "vllm" } }
          }]
          volumes = [{ name = "dshm", empty_dir = { medium = "Memory", size_limit = "15Gi" } }]
        }
      }
      worker_template = {
        spec = {
          containers = [{
            name    = "vllm-worker"
            image   = %[2]q
            command = ["sh", "-c", "bash /vllm-workspace/examples/online_serving/multi-node-serving.sh worker --ray_address=$(LWS_LEADER_ADDRESS)"]
            env = [{
              name = "HF_TOKEN"
              value_from = { secret_key_ref = { name = "hf-token", key = "token" } }
            }]
            resources = {
              limits   = { "nvidia.com/gpu" = "8", memory = "1124Gi", "ephemeral-storage" = "800Gi" }
              requests = { "nvidia.com/gpu" = "8", "ephemeral-storage" = "800Gi", cpu = "500m" }
            }
            volume_mounts = [{ mount_path = "/dev/shm", name = "dshm" }]
          }]
          volumes = [{ name = "dshm", empty_dir = { medium = "Memory", size_limit = "15Gi" } }]
        }
      }
    }
  }
}
`, name, o["image"], o["replicas"], o["top"], o["extra_spec"])
}

func lwsClient(t *testing.T) dynamic.ResourceInterface {
	c := acctest.Cluster(t).Dynamic().Resource(leaderworkerset.Kind.GVR()).Namespace("default")
	startFakeController(c)
	return c
}

var (
	controllerOnce sync.Once
	// stuck names LeaderWorkerSets whose groups the fake controller never reports ready.
	stuck sync.Map
)

// startFakeController plays the LWS controller for the whole test binary: it reports every
// group of every LeaderWorkerSet ready through the status subresource once it sees a new
// generation, as the real controller does when pods come up.
func startFakeController(c dynamic.ResourceInterface) {
	controllerOnce.Do(func() {
		go func() {
			for {
				time.Sleep(150 * time.Millisecond)
				list, err := c.List(context.Background(), metav1.ListOptions{})
				if err != nil {
					continue
				}
				for _, u := range list.Items {
					if _, ok := stuck.Load(u.GetName()); ok {
						continue
					}
					observed, _, _ := unstructured.NestedInt64(u.Object, "status", "observedGeneration")
					replicas, _, _ := unstructured.NestedInt64(u.Object, "spec", "replicas")
					ready, _, _ := unstructured.NestedInt64(u.Object, "status", "readyReplicas")
					if observed == u.GetGeneration() && ready == replicas {
						continue
					}
					_ = setStatus(c, u.GetName(), replicas, true)
				}
			}
		}()
	})
}

func TestAccLeaderWorkerSet_lifecycle(t *testing.T) {
	name := "acc-vllm"
	c := lwsClient(t)
	pc := acctest.ProviderConfig(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: pc + vllm(name),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("id"), knownvalue.StringExact("default/"+name)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("spec").AtMapKey("leader_worker_template").AtMapKey("restart_policy"), knownvalue.StringExact("RecreateGroupOnPodRestart")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("spec").AtMapKey("startup_policy"), knownvalue.StringExact("LeaderCreated")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("spec").AtMapKey("rollout_strategy").AtMapKey("rolling_update_configuration").AtMapKey("max_unavailable"), knownvalue.StringExact("1")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("spec").AtMapKey("network_config").AtMapKey("subdomain_policy"), knownvalue.StringExact("Shared")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("spec").AtMapKey("group_identity"), knownvalue.StringExact("Ordinal")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("spec").AtMapKey("group_replacement_policy"), knownvalue.StringExact("PostTermination")),
				},
			},
			{Config: pc + vllm(name), PlanOnly: true},
			{
				ResourceName:                         addr,
				ImportState:                          true,
				ImportStateVerify:                    true,
				ImportStateId:                        "default/" + name,
				ImportStateVerifyIdentifierAttribute: "id",
			},
			{ // update in place
				Config: pc + vllm(name, "image=vllm/vllm-openai:v0.11.1", "replicas=3"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("spec").AtMapKey("replicas"), knownvalue.Int64Exact(3)),
				},
			},
			{ // drift in a field the user set is detected and, with force_conflicts, reverted
				PreConfig: func() {
					patch := []byte(`{"spec":{"startupPolicy":"LeaderReady","leaderWorkerTemplate":{"size":2}}}`)
					if _, err := c.Patch(context.Background(), name, types.MergePatchType, patch, metav1.PatchOptions{FieldManager: "kubectl-edit"}); err != nil {
						t.Fatal(err)
					}
				},
				Config: pc + vllm(name, "image=vllm/vllm-openai:v0.11.1", "replicas=3", "top=force_conflicts = true"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("spec").AtMapKey("startup_policy"), knownvalue.StringExact("LeaderCreated")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("spec").AtMapKey("leader_worker_template").AtMapKey("size"), knownvalue.Int64Exact(4)),
				},
			},
			{ // deleted out of band: re-created
				PreConfig: func() {
					if err := c.Delete(context.Background(), name, metav1.DeleteOptions{}); err != nil {
						t.Fatal(err)
					}
				},
				Config: pc + vllm(name, "image=vllm/vllm-openai:v0.11.1", "replicas=3"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionCreate),
				}},
			},
			{ // an immutable field plans a replacement instead of failing at apply
				Config: pc + vllm(name, "image=vllm/vllm-openai:v0.11.1", "replicas=3", `extra_spec=group_identity = "Hash"`),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionDestroyBeforeCreate),
				}},
			},
		},
	})
}

// setStatus plays the LWS controller: it writes the status through the status subresource.
func setStatus(c dynamic.ResourceInterface, name string, ready int64, available bool) error {
	u, err := c.Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		return err
	}
	cond := "False"
	if available {
		cond = "True"
	}
	replicas, _, _ := unstructured.NestedInt64(u.Object, "spec", "replicas")
	status := map[string]any{
		"observedGeneration": u.GetGeneration(),
		"replicas":           replicas,
		"readyReplicas":      ready,
		"updatedReplicas":    replicas,
		"hpaPodSelector":     "leaderworkerset.sigs.k8s.io/name=" + name + ",leaderworkerset.sigs.k8s.io/worker-index=0",
		"conditions": []any{map[string]any{
			"type": "Available", "status": cond, "reason": "AllGroupsReady", "message": "All replicas are ready",
			"lastTransitionTime": time.Now().UTC().Format(time.RFC3339),
		}},
	}
	u.Object["status"] = status
	_, err = c.UpdateStatus(context.Background(), u, metav1.UpdateOptions{})
	return err
}

func TestAccLeaderWorkerSet_waitsForRollout(t *testing.T) {
	name := "acc-vllm-wait"
	c := lwsClient(t)
	pc := acctest.ProviderConfig(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: pc + vllm(name, "top=wait_for_rollout = true"),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("status").AtMapKey("ready_replicas"), knownvalue.Int64Exact(2)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("status").AtMapKey("conditions").AtSliceIndex(0).AtMapKey("status"), knownvalue.StringExact("True")),
				},
			},
			{ // an update whose groups never become ready times out with the counts and conditions
				PreConfig: func() {
					stuck.Store(name, true)
					if err := setStatus(c, name, 1, false); err != nil {
						t.Fatal(err)
					}
					createGroupPods(t, name, "0", 2) // group 0: 2 of 4 pods exist, none ready; group 1: none
				},
				Config:      pc + vllm(name, "top=wait_for_rollout = true\ntimeouts = { update = \"3s\" }", "image=vllm/vllm-openai:v0.11.1"),
				ExpectError: regexp.MustCompile(`(?s)timed out waiting for the rollout.*groups ready.*Available=False.*group 0: 0/4 pods ready \(2 exist\).*group 1: no pods yet`),
			},
		},
	})
}

func TestAccLeaderWorkerSet_autoscaledReplicas(t *testing.T) {
	name := "acc-vllm-hpa"
	c := lwsClient(t)
	pc := acctest.ProviderConfig(t)
	cfg := func() string {
		return strings.Replace(vllm(name, "top=manage_replicas = false"), "replicas = 2\n", "", 1)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{
			{Config: pc + cfg()},
			{ // the autoscaler scales through the scale subresource: no drift, no reset
				PreConfig: func() {
					patch := []byte(`{"spec":{"replicas":5}}`)
					if _, err := c.Patch(context.Background(), name, types.MergePatchType, patch, metav1.PatchOptions{FieldManager: "horizontal-pod-autoscaler"}, "scale"); err != nil {
						t.Fatal(err)
					}
				},
				Config:   pc + cfg(),
				PlanOnly: true,
			},
			{ // an unrelated update keeps the autoscaler's replicas
				Config: pc + strings.ReplaceAll(cfg(), "vllm/vllm-openai:v0.11.0", "vllm/vllm-openai:v0.11.1"),
				Check: resource.ComposeTestCheckFunc(func(*terraform.State) error {
					u, err := c.Get(context.Background(), name, metav1.GetOptions{})
					if err != nil {
						return err
					}
					if r, _, _ := unstructured.NestedInt64(u.Object, "spec", "replicas"); r != 5 {
						return fmt.Errorf("replicas = %d, want 5 (the autoscaler's value)", r)
					}
					return nil
				}),
			},
		},
	})
}

// createGroupPods creates pods as the LWS controller would for one group, without a scheduler
// they stay pending (not ready).
func createGroupPods(t *testing.T, lws, group string, n int) {
	t.Helper()
	cs := acctest.Cluster(t).Clientset()
	ctx := context.Background()
	// The ServiceAccount admission plugin needs the namespace's default account; no
	// controller-manager runs here to create it.
	_, _ = cs.CoreV1().ServiceAccounts("default").Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default"}}, metav1.CreateOptions{})
	for i := 0; i < n; i++ {
		pod := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{
				Name:   fmt.Sprintf("%s-%s-%d", lws, group, i),
				Labels: map[string]string{"leaderworkerset.sigs.k8s.io/name": lws, "leaderworkerset.sigs.k8s.io/group-index": group},
			},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "vllm/vllm-openai:v0.11.0"}}},
		}
		if _, err := cs.CoreV1().Pods("default").Create(ctx, pod, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
}
