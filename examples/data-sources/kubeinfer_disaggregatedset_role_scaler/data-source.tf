# Read the scaler of the External role "decode" of the DisaggregatedSet "llama-70b", to point a
# HorizontalPodAutoscaler or a KEDA ScaledObject at it (apiVersion disaggregatedset.x-k8s.io/v1,
# kind DisaggregatedSetRoleScaler).
data "kubeinfer_disaggregatedset_role_scaler" "decode" {
  metadata = {
    name      = "llama-70b-decode"
    namespace = "inference"
  }
}

output "decode_scale_target" {
  value = {
    api_version = "disaggregatedset.x-k8s.io/v1"
    kind        = "DisaggregatedSetRoleScaler"
    name        = data.kubeinfer_disaggregatedset_role_scaler.decode.metadata.name
    selector    = data.kubeinfer_disaggregatedset_role_scaler.decode.status.selector
  }
}
