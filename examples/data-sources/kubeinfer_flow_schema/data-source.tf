# Read the built-in catch-all FlowSchema.
data "kubeinfer_flow_schema" "catch_all" {
  metadata = { name = "catch-all" }
}

output "catch_all_level" {
  value = data.kubeinfer_flow_schema.catch_all.spec.priority_level_configuration.name
}
