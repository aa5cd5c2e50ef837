# The same fleet with Terraform, which has no provider for_each: one aliased
# provider per cluster and one call of the module per provider. Adding a
# cluster is adding a provider block, a module block and an import block.
#
# With adopt = true it takes over a fleet that already runs (applied by another
# configuration or tool): the import blocks adopt each cluster's LeaderWorkerSet,
# and the first plan shows only imports when the running objects match the
# configuration.

terraform {
  required_providers {
    kubeinfer = {
      source = "kubeinfer/kubeinfer"
    }
  }
}

variable "kubeconfigs" {
  description = "The kubeconfig file of each cluster."
  type = object({
    us_east  = string
    eu_west  = string
    ap_south = string
  })
}

variable "adopt" {
  description = "Import each cluster's running LeaderWorkerSet instead of creating it. Once applied, the import blocks are no-ops."
  type        = bool
  default     = false
}

variable "wait_for_rollout" {
  description = "Wait until each cluster's groups are ready."
  type        = bool
  default     = true
}

provider "kubeinfer" {
  alias       = "us_east"
  config_path = var.kubeconfigs.us_east
}

provider "kubeinfer" {
  alias       = "eu_west"
  config_path = var.kubeconfigs.eu_west
}

provider "kubeinfer" {
  alias       = "ap_south"
  config_path = var.kubeconfigs.ap_south
}

module "us_east" {
  source           = "../modules/inference"
  providers        = { kubeinfer = kubeinfer.us_east }
  cluster          = "us-east"
  wait_for_rollout = var.wait_for_rollout
}

module "eu_west" {
  source           = "../modules/inference"
  providers        = { kubeinfer = kubeinfer.eu_west }
  cluster          = "eu-west"
  wait_for_rollout = var.wait_for_rollout
}

module "ap_south" {
  source           = "../modules/inference"
  providers        = { kubeinfer = kubeinfer.ap_south }
  cluster          = "ap-south"
  replicas         = 1
  wait_for_rollout = var.wait_for_rollout
}

# Import blocks with for_each (Terraform 1.7 and later) in the root module, which
# every CLI accepts; the ID is namespace/name as modules/inference names the set.
import {
  for_each = var.adopt ? toset(["default/llama-70b"]) : toset([])
  to       = module.us_east.kubeinfer_leaderworkerset.vllm
  id       = each.value
}

import {
  for_each = var.adopt ? toset(["default/llama-70b"]) : toset([])
  to       = module.eu_west.kubeinfer_leaderworkerset.vllm
  id       = each.value
}

import {
  for_each = var.adopt ? toset(["default/llama-70b"]) : toset([])
  to       = module.ap_south.kubeinfer_leaderworkerset.vllm
  id       = each.value
}

output "gpus" {
  description = "GPUs requested per cluster, known at plan."
  value = {
    us_east  = module.us_east.gpus
    eu_west  = module.eu_west.gpus
    ap_south = module.ap_south.gpus
  }
}
