# Adopts the inference stack that already runs in one cluster (applied by another
# configuration or another tool): the same objects as modules/inference, and an
# import block for each, so the first plan imports them instead of creating them.
# Import blocks inside a module need Terraform 1.16 or later; once applied, the
# import blocks are no-ops and may stay.

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
