# Read an existing LeaderWorkerSet, e.g. to expose its readiness or its HPA selector.
data "kubeinfer_leaderworkerset" "vllm" {
  metadata = {
    name      = "vllm"
    namespace = "inference"
  }
}

output "ready_groups" {
  value = data.kubeinfer_leaderworkerset.vllm.status.ready_replicas
}
