terraform {
  required_providers {
    kubeinfer = {
      source  = "kubeinfer/kubeinfer"
      version = "~> 0.1"
    }
  }
}

# Reads KUBE_CONFIG_PATH, KUBE_HOST, KUBE_TOKEN, ... from the environment, as the
# provider block's connection attributes would say.
provider "kubeinfer" {}

# One group of two pods (a leader and a worker), one GPU each.
resource "kubeinfer_leaderworkerset" "hello" {
  metadata = { name = "hello", namespace = "default" }
  spec = {
    replicas = 1
    leader_worker_template = {
      size = 2
      worker_template = {
        spec = {
          containers = [{
            name      = "vllm"
            image     = "vllm/vllm-openai:v0.11.0"
            resources = { limits = { "nvidia.com/gpu" = "1" }, requests = { "nvidia.com/gpu" = "1" } }
          }]
        }
      }
    }
  }
}

output "gpus" {
  value = kubeinfer_leaderworkerset.hello.footprint.requests["nvidia.com/gpu"]
}
