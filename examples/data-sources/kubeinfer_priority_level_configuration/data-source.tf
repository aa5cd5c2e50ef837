# Read a priority level the API server created, for example to size a new
# level relative to it.
data "kubeinfer_priority_level_configuration" "workload_high" {
  metadata = {
    name = "workload-high"
  }
}

output "workload_high_shares" {
  value = data.kubeinfer_priority_level_configuration.workload_high.spec.limited.nominal_concurrency_shares
}
