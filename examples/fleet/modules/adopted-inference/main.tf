# modules/inference, adopting the stack that already runs in the cluster (applied by
# another configuration or tool): it calls modules/inference with the same variables
# and holds an import block for its LeaderWorkerSet, so the first plan imports it
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

module "inference" {
  source           = "../inference"
  cluster          = var.cluster
  namespace        = var.namespace
  replicas         = var.replicas
  wait_for_rollout = var.wait_for_rollout
}

# The ID is namespace/name; the name is the one modules/inference gives the set.
import {
  to = module.inference.kubeinfer_leaderworkerset.vllm
  id = "${var.namespace}/llama-70b"
}

output "id" {
  description = "namespace/name of the model server."
  value       = module.inference.id
}

output "gpus" {
  description = "GPUs the model server requests in this cluster (at replicas), known at plan."
  value       = module.inference.gpus
}
