# The inference stack of one cluster: a vLLM LeaderWorkerSet (groups of a leader and
# a worker, 8 GPUs each). The caller passes the cluster's provider configuration.

terraform {
  required_providers {
    kubeinfer = {
      source = "kubeinfer/kubeinfer"
    }
  }
}

variable "cluster" {
  description = "Name of the cluster, added as a label."
  type        = string
}

variable "namespace" {
  description = "Namespace of the model server."
  type        = string
  default     = "default"
}

variable "replicas" {
  description = "Groups of the model server in this cluster."
  type        = number
  default     = 2
}

variable "wait_for_rollout" {
  description = "Wait until the groups are ready (needs the LeaderWorkerSet controller and GPU nodes)."
  type        = bool
  default     = true
}

locals {
  image = "vllm/vllm-openai:v0.11.0"
  resources = {
    limits   = { "nvidia.com/gpu" = "8" }
    requests = { "nvidia.com/gpu" = "8", cpu = "16", memory = "256Gi" }
  }
  hf_token_env = {
    name       = "HF_TOKEN"
    value_from = { secret_key_ref = { name = "hf-token", key = "token" } }
  }
}

resource "kubeinfer_leaderworkerset" "vllm" {
  metadata = {
    name      = "llama-70b"
    namespace = var.namespace
    labels    = { "app.kubernetes.io/name" = "vllm", "inference.example.com/cluster" = var.cluster }
  }
  spec = {
    replicas = var.replicas
    leader_worker_template = {
      size = 2
      leader_template = {
        spec = {
          containers = [{
            name      = "vllm-leader"
            image     = local.image
            command   = ["sh", "-c", "bash /vllm-workspace/examples/online_serving/multi-node-serving.sh leader --ray_cluster_size=$(LWS_GROUP_SIZE); python3 -m vllm.entrypoints.openai.api_server --port 8080 --model meta-llama/Llama-3.3-70B-Instruct --tensor-parallel-size 8 --pipeline_parallel_size 2"]
            env       = [local.hf_token_env]
            ports     = [{ name = "http", container_port = 8080 }]
            resources = local.resources
          }]
        }
      }
      worker_template = {
        spec = {
          containers = [{
            name      = "vllm-worker"
            image     = local.image
            command   = ["sh", "-c", "bash /vllm-workspace/examples/online_serving/multi-node-serving.sh worker --ray_address=$(LWS_LEADER_ADDRESS)"]
            env       = [local.hf_token_env]
            resources = local.resources
          }]
        }
      }
    }
  }
  wait_for_rollout = var.wait_for_rollout
}

output "id" {
  description = "namespace/name of the model server."
  value       = kubeinfer_leaderworkerset.vllm.id
}

output "gpus" {
  description = "GPUs the model server requests in this cluster (at replicas), known at plan."
  value       = kubeinfer_leaderworkerset.vllm.footprint.requests["nvidia.com/gpu"]
}
