resource "kubeinfer_leaderworkerset" "test" {
  metadata = {
    name      = "acc-golden"
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
            label_selector     = { match_labels = { role = "leader", "leaderworkerset.sigs.k8s.io/name" = "acc-golden" } }
          }]
          volumes = [{ name = "dshm", empty_dir = { medium = "Memory", size_limit = "15Gi" } }]
        }
      }
      worker_template = {
        spec = {
          containers = [{
            name    = "vllm-worker"
            image   = "vllm/vllm-openai:v0.11.0"
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
