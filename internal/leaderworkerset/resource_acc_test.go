package leaderworkerset_test

import (
	"context"
	"fmt"
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
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/leaderworkerset"
)

func TestMain(m *testing.M) { acctest.Main(m) }

// The tests in this file run on the ReleasedLWS profile of the test cluster: the CRD,
// controller-manager and webhooks of sigs.k8s.io/lws v0.9.0, kube-controller-manager,
// kube-scheduler and KWOK nodes (8 nodes with 8 GPUs each in two zones, tainted
// nvidia.com/gpu; pods that request GPUs get the toleration from the API server's
// ExtendedResourceToleration admission plugin). Pods are really scheduled and turn Ready, so
// the rollout waits watch real rollouts. Tests run one after another and each destroys what it
// created, so each may use every GPU.

const addr = "kubeinfer_leaderworkerset.test"

// vllm is a realistic multi-node vLLM deployment: leader and workers with GPUs, /dev/shm as a
// memory emptyDir, zone spreading, a readiness probe and the Hugging Face token from a Secret.
// Options (key=value): image, replicas, size, gpus, memory and cpu (per pod), top (extra
// top-level attributes), extra_spec (extra spec attributes), lwt (extra leader_worker_template
// attributes), spread (the leader's when_unsatisfiable).
func vllm(name string, opts ...string) string {
	o := map[string]string{
		"image": "vllm/vllm-openai:v0.11.0", "replicas": "2", "size": "4", "gpus": "8", "memory": "1124Gi", "cpu": "125",
		"top": "", "extra_spec": "", "lwt": "", "spread": "ScheduleAnyway",
	}
	for _, kv := range opts {
		k, v, _ := strings.Cut(kv, "=")
		if _, ok := o[k]; !ok {
			panic("vllm: unknown option " + k)
		}
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
      size = %[6]s
      %[10]s
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
              limits   = { "nvidia.com/gpu" = %[7]q, memory = %[8]q, "ephemeral-storage" = "800Gi" }
              requests = { "nvidia.com/gpu" = %[7]q, "ephemeral-storage" = "800Gi", cpu = %[9]q }
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
            when_unsatisfiable = %[11]q
            label_selector     = { match_labels = { role = "leader", "leaderworkerset.sigs.k8s.io/name" = %[1]q } }
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
              limits   = { "nvidia.com/gpu" = %[7]q, memory = %[8]q, "ephemeral-storage" = "800Gi" }
              requests = { "nvidia.com/gpu" = %[7]q, "ephemeral-storage" = "800Gi", cpu = "500m" }
            }
            volume_mounts = [{ mount_path = "/dev/shm", name = "dshm" }]
          }]
          volumes = [{ name = "dshm", empty_dir = { medium = "Memory", size_limit = "15Gi" } }]
        }
      }
    }
  }
}
`, name, o["image"], o["replicas"], o["top"], o["extra_spec"], o["size"], o["gpus"], o["memory"], o["cpu"], o["lwt"], o["spread"])
}

// smallGPU sizes the pods of vllm so that several fit a node (2 GPUs, 128Gi, 16 CPUs).
var smallGPU = []string{"gpus=2", "memory=128Gi", "cpu=16"}

func with(base []string, more ...string) []string {
	return append(append([]string{}, base...), more...)
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
	name := "acc-vllm-minimal"
	lwsClient(t)
	pc := acctest.ProviderConfig(t)
	cfg := pc + vllm(name)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             controllerCleanedUp(t, name),
		Steps: []resource.TestStep{
			{
				Config: cfg,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("id"), knownvalue.StringExact("default/"+name)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("spec").AtMapKey("leader_worker_template").AtMapKey("restart_policy"), knownvalue.StringExact("RecreateGroupOnPodRestart")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("spec").AtMapKey("startup_policy"), knownvalue.StringExact("LeaderCreated")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("spec").AtMapKey("rollout_strategy").AtMapKey("rolling_update_configuration").AtMapKey("max_unavailable"), knownvalue.StringExact("1")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("spec").AtMapKey("network_config").AtMapKey("subdomain_policy"), knownvalue.StringExact("Shared")),
					// Not in the released API: the planned defaults stand for the server's behaviour.
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("spec").AtMapKey("group_identity"), knownvalue.StringExact("Ordinal")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("spec").AtMapKey("group_replacement_policy"), knownvalue.StringExact("PostTermination")),
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
	name := "acc-vllm"
	c := lwsClient(t)
	pc := acctest.ProviderConfig(t)
	base := with(smallGPU, "size=2")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             controllerCleanedUp(t, name),
		Steps: []resource.TestStep{
			{Config: pc + vllm(name, base...)},
			{Config: pc + vllm(name, base...), PlanOnly: true},
			{ // update in place: a real rollout to the new image and a third group
				Config: pc + vllm(name, with(base, "image=vllm/vllm-openai:v0.11.1", "replicas=3")...),
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
				Config: pc + vllm(name, with(base, "image=vllm/vllm-openai:v0.11.1", "replicas=3", "top=force_conflicts = true")...),
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
				Config: pc + vllm(name, with(base, "image=vllm/vllm-openai:v0.11.1", "replicas=3")...),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionCreate),
				}},
			},
			{ // a field the webhook makes immutable plans a replacement instead of failing at apply
				Config: pc + vllm(name, with(base, "image=vllm/vllm-openai:v0.11.1", "replicas=3", "lwt=sub_group_policy = { sub_group_size = 2 }")...),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionDestroyBeforeCreate),
				}},
			},
			{Config: pc + vllm(name, with(base, "image=vllm/vllm-openai:v0.11.1", "replicas=3", "lwt=sub_group_policy = { sub_group_size = 2 }")...), PlanOnly: true},
		},
	})
}

// TestAccLeaderWorkerSet_newerFieldOnReleasedCRD: a field the released CRD does not declare
// fails the apply on that attribute, naming the API that has it, instead of the server's
// "field not declared in schema".
func TestAccLeaderWorkerSet_newerFieldOnReleasedCRD(t *testing.T) {
	name := "acc-vllm-newer"
	lwsClient(t)
	pc := acctest.ProviderConfig(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:      pc + vllm(name, with(smallGPU, "size=2", `extra_spec=group_identity = "Hash"`)...),
				ExpectError: regexp.MustCompile(`(?s)spec\.group_identity.*groupIdentity.*(not declare|newer)`),
			},
			{
				Config:      pc + vllm(name, with(smallGPU, "size=2", "lwt=max_group_restarts = 3")...),
				ExpectError: regexp.MustCompile(`(?s)spec\.leader_worker_template\.max_group_restarts.*maxGroupRestarts.*(not declare|newer)`),
			},
		},
	})
}

func TestAccLeaderWorkerSet_autoscaledReplicas(t *testing.T) {
	name := "acc-vllm-hpa"
	c := lwsClient(t)
	pc := acctest.ProviderConfig(t)
	cfg := func(image string) string {
		return strings.Replace(vllm(name, with(smallGPU, "size=2", "top=manage_replicas = false", "image="+image)...), "replicas = 2\n", "", 1)
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
