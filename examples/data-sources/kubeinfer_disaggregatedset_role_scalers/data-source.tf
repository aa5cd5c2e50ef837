# Every role scaler of the DisaggregatedSet "llama-70b" (one per External role), to give each
# an autoscaler with for_each.
data "kubeinfer_disaggregatedset_role_scalers" "llama" {
  namespace      = "inference"
  label_selector = "disaggregatedset.x-k8s.io/name=llama-70b"
}

output "scale_targets" {
  value = {
    for s in data.kubeinfer_disaggregatedset_role_scalers.llama.items :
    s.metadata.labels["disaggregatedset.x-k8s.io/role"] => {
      name     = s.metadata.name
      selector = s.status.selector
    }
  }
}
