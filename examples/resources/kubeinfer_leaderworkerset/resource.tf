# A multi-node vLLM server: 2 groups of 4 pods (1 leader + 3 workers), 8 GPUs per pod.
resource "kubeinfer_leaderworkerset" "vllm" {
  metadata = {
    name      = "vllm"
    namespace = "inference"
  }

  spec = {
    replicas = 2

    leader_worker_template = {
      size           = 4
      restart_policy = "RecreateGroupOnPodRestart"

      leader_template = {
        metadata = { labels = { role = "leader" } }
        spec = {
          containers = [{
            name    = "vllm-leader"
            image   = "vllm/vllm-openai:v0.11.0"
            command = ["sh", "-c", "bash /vllm-workspace/examples/online_serving/multi-node-serving.sh leader --ray_cluster_size=$(LWS_GROUP_SIZE); python3 -m vllm.entrypoints.openai.api_server --port 8080 --model meta-llama/Meta-Llama-3.1-405B-Instruct --tensor-parallel-size 8 --pipeline_parallel_size 4"]
            env = [{
              name       = "HF_TOKEN"
              value_from = { secret_key_ref = { name = "hf-token", key = "token" } }
            }]
            ports     = [{ container_port = 8080 }]
            resources = { limits = { "nvidia.com/gpu" = "8" }, requests = { "nvidia.com/gpu" = "8" } }
            readiness_probe = {
              tcp_socket            = { port = "8080" }
              initial_delay_seconds = 15
            }
            volume_mounts = [{ name = "dshm", mount_path = "/dev/shm" }]
          }]
          volumes = [{ name = "dshm", empty_dir = { medium = "Memory", size_limit = "15Gi" } }]
        }
      }

      worker_template = {
        spec = {
          containers = [{
            name          = "vllm-worker"
            image         = "vllm/vllm-openai:v0.11.0"
            command       = ["sh", "-c", "bash /vllm-workspace/examples/online_serving/multi-node-serving.sh worker --ray_address=$(LWS_LEADER_ADDRESS)"]
            resources     = { limits = { "nvidia.com/gpu" = "8" }, requests = { "nvidia.com/gpu" = "8" } }
            volume_mounts = [{ name = "dshm", mount_path = "/dev/shm" }]
          }]
          volumes = [{ name = "dshm", empty_dir = { medium = "Memory", size_limit = "15Gi" } }]
          # Spread the groups over zones.
          topology_spread_constraints = [{
            max_skew           = 1
            topology_key       = "topology.kubernetes.io/zone"
            when_unsatisfiable = "ScheduleAnyway"
            label_selector     = { match_labels = { "leaderworkerset.sigs.k8s.io/name" = "vllm" } }
          }]
        }
      }
    }
  }

  timeouts = {
    create = "30m"
  }
}

# Replicas owned by an autoscaler (HPA or KEDA through the scale subresource):
# the provider neither sends nor resets spec.replicas.
resource "kubeinfer_leaderworkerset" "autoscaled" {
  manage_replicas = false

  metadata = { name = "vllm-small", namespace = "inference" }
  spec = {
    leader_worker_template = {
      size = 2
      worker_template = {
        spec = {
          containers = [{ name = "vllm", image = "vllm/vllm-openai:v0.11.0" }]
        }
      }
    }
  }
}
