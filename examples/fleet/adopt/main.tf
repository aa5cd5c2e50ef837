# Taking over a fleet that is already running (Terraform 1.16 and later, which
# runs import blocks inside modules): the same clusters and stacks as
# ../terraform, through modules/adopt, whose import blocks adopt each cluster's
# objects. The first plan shows only imports when the running objects match the
# configuration; later plans are those of ../terraform.

terraform {
  required_version = ">= 1.16.0"
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
  source           = "../modules/adopt"
  providers        = { kubeinfer = kubeinfer.us_east }
  cluster          = "us-east"
  wait_for_rollout = var.wait_for_rollout
}

module "eu_west" {
  source           = "../modules/adopt"
  providers        = { kubeinfer = kubeinfer.eu_west }
  cluster          = "eu-west"
  wait_for_rollout = var.wait_for_rollout
}

module "ap_south" {
  source           = "../modules/adopt"
  providers        = { kubeinfer = kubeinfer.ap_south }
  cluster          = "ap-south"
  replicas         = 1
  wait_for_rollout = var.wait_for_rollout
}

output "gpus" {
  description = "GPUs requested per cluster, known at plan."
  value = {
    us_east  = module.us_east.gpus
    eu_west  = module.eu_west.gpus
    ap_south = module.ap_south.gpus
  }
}
