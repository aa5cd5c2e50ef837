# Terraform 1.14 and later (OpenTofu has no actions). On OpenTofu and earlier
# Terraform, restart every group by declaring the kubectl.kubernetes.io/restartedAt
# annotation on both pod templates of the resource and changing its value (the guide
# "Changing a running inference fleet"); restarting given groups needs the action.

# A rolling restart of every group, by the set's rollout strategy:
#   terraform apply -invoke=action.kubeinfer_leaderworkerset_restart.vllm
action "kubeinfer_leaderworkerset_restart" "vllm" {
  config {
    metadata = {
      name      = "vllm"
      namespace = "inference"
    }
    timeouts = {
      invoke = "2h" # large models take a while to load on every group
    }
  }
}

# Recreate only group 3 (for example a model server that hangs):
#   terraform apply -invoke=action.kubeinfer_leaderworkerset_restart.vllm_group_3
action "kubeinfer_leaderworkerset_restart" "vllm_group_3" {
  config {
    metadata = {
      name      = "vllm"
      namespace = "inference"
    }
    groups = [3]
  }
}

# Restart every group whenever the model weights change: a new revision
# updates the terraform_data, and its update invokes the action.
variable "weights_revision" {
  type    = string
  default = "2026-01-15"
}

resource "terraform_data" "weights" {
  input = var.weights_revision
  lifecycle {
    action_trigger {
      events  = [after_create, after_update]
      actions = [action.kubeinfer_leaderworkerset_restart.vllm]
    }
  }
}
