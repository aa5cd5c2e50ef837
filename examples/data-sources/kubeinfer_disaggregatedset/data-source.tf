# Read an existing DisaggregatedSet, e.g. to pass its roles' pod labels to a router.
data "kubeinfer_disaggregatedset" "llama" {
  metadata = {
    name      = "llama-70b"
    namespace = "inference"
  }
}

output "roles" {
  value = [for r in data.kubeinfer_disaggregatedset.llama.spec.roles : r.name]
}
