# Disaggregated serving of one model with vLLM: prefill and decode run on
# separate groups of GPUs, and the KV cache moves from prefill to decode over
# NIXL. A DisaggregatedSet (LeaderWorkerSet v0.9.0 or later) keeps the two
# roles together: a change to either template rolls both out in step, so a
# prefill pod never hands its KV cache to a decode pod of another version.
#
#   prefill: 2 groups of 1 pod with 8 GPUs (tensor parallel 8), compute-bound
#   decode:  1 group of 2 pods with 8 GPUs each (tensor parallel 8, pipeline
#            parallel 2 over the leader and its worker), memory-bound
#
# The pod labels are the ones a router selects on: an InferencePool of the
# Gateway API Inference Extension (or llm-d's scheduler) selects
# llm-d.ai/inferenceServing = "true" and tells the roles apart by llm-d.ai/role.
# The controller adds disaggregatedset.x-k8s.io/{name,role,revision} as well.
#
# Everything is checked offline during `terraform plan`, each role with every
# LeaderWorkerSet and pod template rule.

terraform {
  required_providers {
    kubeinfer = {
      source = "kubeinfer/kubeinfer"
    }
  }
}

# The connection comes from the environment (KUBE_CONFIG_PATH, or KUBE_HOST and
# KUBE_TOKEN, ...; see the provider documentation).
provider "kubeinfer" {}

variable "model" {
  type    = string
  default = "meta-llama/Llama-3.1-70B-Instruct"
}

variable "image" {
  type    = string
  default = "vllm/vllm-openai:v0.11.0"
}

variable "allow_group_restarts" {
  description = "Let a plan roll the roles out (an image, env or template change of any role rolls every role). Off by default: such a plan fails naming the changed fields; roll out deliberately with -var allow_group_restarts=true."
  type        = bool
  default     = false
}

locals {
  # The NIXL connector moves the KV cache between the roles; every pod can
  # send and receive.
  kv_transfer_config = jsonencode({ kv_connector = "NixlConnector", kv_role = "kv_both" })

  # One vLLM container; the roles differ in their parallelism.
  vllm = {
    name  = "vllm"
    image = var.image
    env = [
      { name = "HF_TOKEN", value_from = { secret_key_ref = { name = "hf-token", key = "token" } } },
      { name = "VLLM_NIXL_SIDE_CHANNEL_PORT", value = "5600" },
    ]
    ports = [
      { name = "http", container_port = 8000 },
      { name = "nixl", container_port = 5600 },
    ]
    resources = {
      limits   = { "nvidia.com/gpu" = "8", memory = "512Gi" }
      requests = { "nvidia.com/gpu" = "8", cpu = "64", memory = "512Gi" }
    }
    readiness_probe = {
      http_get              = { path = "/health", port = "http" }
      initial_delay_seconds = 30
      period_seconds        = 10
    }
    volume_mounts = [{ name = "dshm", mount_path = "/dev/shm" }]
  }

  pod_spec = {
    # GPU nodes are usually tainted nvidia.com/gpu:NoSchedule.
    tolerations = [{ key = "nvidia.com/gpu", operator = "Exists", effect = "NoSchedule" }]
    volumes     = [{ name = "dshm", empty_dir = { medium = "Memory", size_limit = "32Gi" } }]
  }

  labels = {
    "llm-d.ai/inferenceServing" = "true"
    "llm-d.ai/model"            = "llama-3-1-70b"
  }
}

resource "kubeinfer_disaggregatedset" "llama" {
  metadata = {
    name      = "llama-70b"
    namespace = "default"
    labels    = { "app.kubernetes.io/part-of" = "inference-platform" }
  }

  spec = {
    roles = [
      {
        name = "prefill"
        spec = {
          replicas = 2
          leader_worker_template = {
            size = 1
            worker_template = {
              metadata = { labels = merge(local.labels, { "llm-d.ai/role" = "prefill" }) }
              spec = merge(local.pod_spec, {
                containers = [merge(local.vllm, {
                  command = ["vllm", "serve", var.model, "--port", "8000",
                  "--tensor-parallel-size", "8", "--kv-transfer-config", local.kv_transfer_config]
                })]
              })
            }
          }
        }
      },
      {
        name = "decode"
        spec = {
          replicas = 1
          leader_worker_template = {
            # A leader and one worker: pipeline parallel over two nodes, with Ray.
            size = 2
            leader_template = {
              metadata = { labels = merge(local.labels, { "llm-d.ai/role" = "decode" }) }
              spec = merge(local.pod_spec, {
                containers = [merge(local.vllm, {
                  command = ["sh", "-c", join(" ", ["bash /vllm-workspace/examples/online_serving/multi-node-serving.sh leader --ray_cluster_size=$(LWS_GROUP_SIZE);",
                    "vllm serve ${var.model} --port 8000 --tensor-parallel-size 8 --pipeline-parallel-size 2",
                  "--kv-transfer-config '${local.kv_transfer_config}'"])]
                })]
              })
            }
            worker_template = {
              metadata = { labels = { "llm-d.ai/role" = "decode" } }
              spec = merge(local.pod_spec, {
                containers = [merge(local.vllm, {
                  command         = ["sh", "-c", "bash /vllm-workspace/examples/online_serving/multi-node-serving.sh worker --ray_address=$(LWS_LEADER_ADDRESS)"]
                  readiness_probe = null
                })]
              })
            }
          }
        }
      },
    ]
  }

  # A production workspace: a change that recreates running groups fails at plan unless
  # allowed for this run (scaling and metadata changes still pass).
  allow_group_restarts = var.allow_group_restarts

  timeouts = {
    create = "30m"
    update = "60m"
  }
}

output "disaggregatedset" {
  value = kubeinfer_disaggregatedset.llama.id
}
