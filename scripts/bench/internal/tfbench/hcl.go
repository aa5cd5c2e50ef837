package tfbench

import "fmt"

// RequiredProviders is the terraform block of every benchmark configuration.
const RequiredProviders = `terraform {
  required_providers {
    kubeinfer = { source = "kubeinfer/kubeinfer" }
  }
}
`

// OfflineProvider points the provider at a port where nothing listens, so that any request
// fails (after the client's retries) and shows in the time or as an error; validate and a plan
// of new objects need none.
const OfflineProvider = `provider "kubeinfer" {
  host     = "https://127.0.0.1:1"
  token    = "unused"
  insecure = true
}
`

// VLLMLeaderWorkerSet is the kubeinfer_leaderworkerset resource `label` of
// lwsfixture.VLLM(name, 2, 4), written as in the resource's acceptance tests, with waiting for
// the rollout disabled (the test cluster has no LWS controller); the rolling update settings
// and the restart policy are the defaults, which the provider plans. workerSpec is the body of
// worker_template.spec, indented by ten spaces, without a final newline: VLLMWorkerSpec, or a
// grown one (scripts/bench/slope).
func VLLMLeaderWorkerSet(label, name, workerSpec string) string {
	return fmt.Sprintf(vllmHCL, label, name, workerSpec)
}

const vllmHCL = `resource "kubeinfer_leaderworkerset" %q {
  wait_for_rollout = false
  metadata = {
    name      = %q
    namespace = "default"
    labels    = { app = "vllm" }
  }
  spec = {
    replicas = 2
    leader_worker_template = {
      size = 4
      leader_template = {
        metadata = { labels = { role = "leader" } }
        spec = {
          containers = [{
            name    = "vllm-leader"
            image   = "vllm/vllm-openai:v0.11.0"
            command = ["sh", "-c", "bash /vllm-workspace/examples/online_serving/multi-node-serving.sh leader --ray_cluster_size=$(LWS_GROUP_SIZE); python3 -m vllm.entrypoints.openai.api_server --port 8080 --model meta-llama/Meta-Llama-3.1-405B-Instruct --tensor-parallel-size 8 --pipeline_parallel_size 2"]
            env = [{
              name       = "HF_TOKEN"
              value_from = { secret_key_ref = { name = "hf-token", key = "token" } }
            }]
            ports = [{ container_port = 8080 }]
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
%s
        }
      }
    }
  }
}
`

// VLLMWorkerSpec is worker_template.spec of lwsfixture.VLLM: one worker container and the
// shared-memory volume.
const VLLMWorkerSpec = `          containers = [{
            name    = "vllm-worker"
            image   = "vllm/vllm-openai:v0.11.0"
            command = ["sh", "-c", "bash /vllm-workspace/examples/online_serving/multi-node-serving.sh worker --ray_address=$(LWS_LEADER_ADDRESS)"]
            env = [{
              name       = "HF_TOKEN"
              value_from = { secret_key_ref = { name = "hf-token", key = "token" } }
            }]
            resources = {
              limits   = { "nvidia.com/gpu" = "8", memory = "1124Gi", "ephemeral-storage" = "800Gi" }
              requests = { "nvidia.com/gpu" = "8", "ephemeral-storage" = "800Gi", cpu = "125" }
            }
            volume_mounts = [{ mount_path = "/dev/shm", name = "dshm" }]
          }]
          volumes = [{ name = "dshm", empty_dir = { medium = "Memory", size_limit = "15Gi" } }]`
