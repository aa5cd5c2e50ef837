# Every priority level of the cluster (a cluster-scoped kind: there is no
# namespace), the API server's own bootstrap levels included, with the ID an
# `import` block takes for each.
data "kubeinfer_priority_level_configurations" "all" {}

output "priority_levels" {
  value = { for o in data.kubeinfer_priority_level_configurations.all.items : o.name => o.import_id }
}
