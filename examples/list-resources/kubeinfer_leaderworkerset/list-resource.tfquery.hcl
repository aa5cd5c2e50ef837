# terraform query (Terraform 1.14 and later) lists the LeaderWorkerSets of the
# "inference" namespace labelled app=vllm, whoever created them. With
# -generate-config-out=generated.tf it writes an import block and a resource
# block for each. The LeaderWorkerSets that a DisaggregatedSet creates for its
# roles are left out (a warning counts them): manage the DisaggregatedSet
# instead, or set include_controlled = true to list them too.
list "kubeinfer_leaderworkerset" "vllm" {
  provider         = kubeinfer
  include_resource = true

  config {
    namespace      = "inference"
    label_selector = "app=vllm"
  }
}
