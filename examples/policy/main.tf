# A model server as a pull request would change it. The pipeline plans it without
# cluster credentials and checks the plan with the policies in policy/:
#
#   terraform plan -refresh=false -out=tfplan
#   terraform show -json tfplan > plan.json
#   opa eval -d policy/ -d data.json -i plan.json --fail-defined 'data.kubeinfer.policy.deny[msg]'
#
# terraform plan -refresh=false -var-file=denied.tfvars ... is a change the
# policies refuse.

terraform {
  required_providers {
    kubeinfer = {
      source = "kubeinfer/kubeinfer"
    }
  }
}

# No credentials: plans of new objects make no API call.
provider "kubeinfer" {}

variable "namespace" {
  type    = string
  default = "inference"
}

variable "replicas" {
  description = "Groups of 2 pods with 8 GPUs each."
  type        = number
  default     = 2
}

variable "image" {
  type    = string
  default = "registry.example.com/vllm/vllm-openai:v0.11.0"
}

variable "extra_env" {
  description = "Extra environment variables of the containers."
  type        = list(object({ name = string, value = string }))
  default     = []
}

locals {
  resources = {
    limits   = { "nvidia.com/gpu" = "8" }
    requests = { "nvidia.com/gpu" = "8", cpu = "16", memory = "256Gi" }
  }
  env = concat([{
    name       = "HF_TOKEN"
    value_from = { secret_key_ref = { name = "hf-token", key = "token" } }
  }], [for e in var.extra_env : { name = e.name, value = e.value }])
}

resource "kubeinfer_leaderworkerset" "vllm" {
  metadata = {
    name      = "llama-70b"
    namespace = var.namespace
  }
  spec = {
    replicas = var.replicas
    rollout_strategy = {
      type = "RollingUpdate"
      rolling_update_configuration = {
        max_unavailable = "0"
        max_surge       = "1" # one extra group during a rollout: the budget counts it
      }
    }
    leader_worker_template = {
      size = 2
      worker_template = {
        spec = {
          containers = [{
            name      = "vllm"
            image     = var.image
            env       = local.env
            resources = local.resources
          }]
        }
      }
    }
  }
}
