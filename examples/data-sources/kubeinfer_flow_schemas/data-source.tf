# The FlowSchemas of the cluster (a cluster-scoped kind: there is no
# namespace) that carry a label, for example to check that the FlowSchemas of
# the inference controllers are in place before their priority levels change.
data "kubeinfer_flow_schemas" "inference" {
  label_selector = "app.kubernetes.io/part-of=inference"
}

output "inference_flow_schemas" {
  value = [for o in data.kubeinfer_flow_schemas.inference.items : o.name]
}
