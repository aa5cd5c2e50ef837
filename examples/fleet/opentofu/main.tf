# One configuration, the same inference stack in every cluster of var.clusters:
# OpenTofu 1.9 and later configure one provider instance per cluster (provider
# for_each) and call the module once per cluster with its instance. Adding a
# cluster is adding an entry to var.clusters.

terraform {
  required_version = ">= 1.9.0"
  required_providers {
    kubeinfer = {
      source = "kubeinfer/kubeinfer"
    }
  }
}

variable "clusters" {
  description = "The clusters, by name: the kubeconfig file (and context) of each."
  type = map(object({
    config_path    = string
    config_context = optional(string)
    replicas       = optional(number, 2)
  }))
}

variable "retired_clusters" {
  description = "Clusters whose objects are destroyed while their provider instance stays: the first step of removing a cluster (then remove it from clusters)."
  type        = set(string)
  default     = []
}

variable "wait_for_rollout" {
  description = "Wait until each cluster's groups are ready."
  type        = bool
  default     = true
}

provider "kubeinfer" {
  alias          = "by_cluster"
  for_each       = var.clusters
  config_path    = each.value.config_path
  config_context = each.value.config_context
}

# The module's instances are a subset of the provider's: a provider instance must
# outlive the objects it manages by one apply, so a cluster is retired before it
# is removed.
module "inference" {
  source   = "../modules/inference"
  for_each = { for name, c in var.clusters : name => c if !contains(var.retired_clusters, name) }
  providers = {
    kubeinfer = kubeinfer.by_cluster[each.key]
  }

  cluster          = each.key
  replicas         = each.value.replicas
  wait_for_rollout = var.wait_for_rollout
}

output "gpus" {
  description = "GPUs requested per cluster, known at plan."
  value       = { for name, m in module.inference : name => m.gpus }
}
