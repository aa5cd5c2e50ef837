# modules/inference, adopting the stack that already runs in the cluster (applied by
# another configuration or tool): it calls modules/inference with the variables given
# in `inference` and holds an import block for its LeaderWorkerSet, so the first plan imports it
# instead of creating it. Once applied, the import block is a no-op and may stay.
#
# Terraform 1.16 and later only: older Terraform and OpenTofu refuse import blocks
# outside the root module. For them, put the import blocks in the root module (as
# ../../terraform does with adopt = true).

terraform {
  required_version = ">= 1.16.0"
  required_providers {
    kubeinfer = {
      source = "kubeinfer/kubeinfer"
    }
  }
}

variable "inference" {
  description = "The variables of modules/inference (cluster, namespace, replicas, wait_for_rollout), passed through; those left out take the defaults of modules/inference."
  type = object({
    cluster          = string
    namespace        = optional(string, "default")
    replicas         = optional(number, 2)
    wait_for_rollout = optional(bool, true)
  })
}

module "inference" {
  source           = "../inference"
  cluster          = var.inference.cluster
  namespace        = var.inference.namespace
  replicas         = var.inference.replicas
  wait_for_rollout = var.inference.wait_for_rollout
}

# The ID is namespace/name; the name is the one modules/inference gives the set.
import {
  to = module.inference.kubeinfer_leaderworkerset.vllm
  id = "${var.inference.namespace}/llama-70b"
}

output "id" {
  description = "namespace/name of the model server."
  value       = module.inference.id
}

output "gpus" {
  description = "GPUs the model server requests in this cluster (at replicas), known at plan."
  value       = module.inference.gpus
}
