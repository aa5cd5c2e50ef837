# An autoscaled decode role (LeaderWorkerSet v0.10.0 or later). The decode role's
# scaling.mode is External: its group count belongs to a DisaggregatedSetRoleScaler
# that the controller creates, named <set>-<role>, and that an autoscaler drives
# through its scale subresource. Terraform neither sends nor compares the role's
# replicas, so a plan never fights the autoscaler; prefill stays Static, sized here.
#
# The autoscaler itself (a HorizontalPodAutoscaler or a KEDA ScaledObject) is
# another provider's resource; the outputs give it what it needs: the scale
# target and the selector of one leader pod per group. With hashicorp/kubernetes:
#
#   resource "kubernetes_horizontal_pod_autoscaler_v2" "decode" {
#     metadata { name = "llama-70b-decode", namespace = "default" }
#     spec {
#       min_replicas = 1
#       max_replicas = 4
#       scale_target_ref {
#         api_version = "disaggregatedset.x-k8s.io/v1"
#         kind        = "DisaggregatedSetRoleScaler"
#         name        = data.kubeinfer_disaggregatedset_role_scaler.decode.metadata.name
#       }
#       metric { ... }
#     }
#   }
#
# Switching a role from Static to External keeps its current group count (the
# controller seeds the scaler with it). While the role is External, the state and
# the footprint record the groups that run (the scaler's count), so switching back
# (decode_scaling = "Static", decode_replicas = 2) plans the real change, e.g.
# "4 running groups -> 2: 2 groups of 8 GPUs removed"; the controller then deletes
# the scaler, so the data source below is read only while the role is External
# (remove the autoscaler first: its target is gone).

terraform {
  required_providers {
    kubeinfer = {
      source = "kubeinfer/kubeinfer"
    }
  }
}

provider "kubeinfer" {}

variable "decode_scaling" {
  description = "Scaling mode of the decode role: External (an autoscaler drives its role scaler) or Static (decode_replicas)."
  type        = string
  default     = "External"
  validation {
    condition     = contains(["External", "Static"], var.decode_scaling)
    error_message = "decode_scaling is External or Static."
  }
}

variable "decode_replicas" {
  description = "Groups of the decode role when decode_scaling is Static."
  type        = number
  default     = 1
}

locals {
  decode_external = var.decode_scaling == "External"

  vllm = {
    name  = "vllm"
    image = "vllm/vllm-openai:v0.11.0"
    ports = [{ name = "http", container_port = 8000 }]
    resources = {
      limits   = { "nvidia.com/gpu" = "8" }
      requests = { "nvidia.com/gpu" = "8", cpu = "32", memory = "256Gi" }
    }
  }
}

resource "kubeinfer_disaggregatedset" "llama" {
  metadata = {
    name      = "llama-70b"
    namespace = "default"
  }

  spec = {
    roles = [
      {
        name = "prefill"
        spec = {
          replicas = 2
          leader_worker_template = {
            size            = 1
            worker_template = { spec = { containers = [merge(local.vllm, { command = ["vllm", "serve", "meta-llama/Llama-3.1-70B-Instruct", "--tensor-parallel-size", "8"] })] } }
          }
        }
      },
      {
        name    = "decode"
        scaling = { mode = var.decode_scaling }
        spec = {
          # An External role's count is the autoscaler's: not written here.
          replicas = local.decode_external ? null : var.decode_replicas
          leader_worker_template = {
            size            = 1
            worker_template = { spec = { containers = [merge(local.vllm, { command = ["vllm", "serve", "meta-llama/Llama-3.1-70B-Instruct", "--tensor-parallel-size", "8"] })] } }
          }
        }
      },
    ]
  }
}

# The scaler exists once the controller has reconciled the External role: read it
# after the set is applied, and only while the role is External.
data "kubeinfer_disaggregatedset_role_scaler" "decode" {
  count = local.decode_external ? 1 : 0
  metadata = {
    name      = "${kubeinfer_disaggregatedset.llama.metadata.name}-decode"
    namespace = kubeinfer_disaggregatedset.llama.metadata.namespace
  }
}

output "decode_scale_target" {
  description = "What a HorizontalPodAutoscaler's scale_target_ref or a KEDA ScaledObject's scaleTargetRef names (null while decode is Static)."
  value = local.decode_external ? {
    api_version = "disaggregatedset.x-k8s.io/v1"
    kind        = "DisaggregatedSetRoleScaler"
    name        = data.kubeinfer_disaggregatedset_role_scaler.decode[0].metadata.name
    selector    = data.kubeinfer_disaggregatedset_role_scaler.decode[0].status.selector
  } : null
}

output "decode_groups" {
  description = "Groups of the decode role: while External, those that run (the autoscaler's count, as of the last refresh)."
  value       = kubeinfer_disaggregatedset.llama.spec.roles[1].spec.replicas
}
