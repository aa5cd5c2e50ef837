# The DisaggregatedSets of a namespace, for adopting them with `import` blocks
# and `for_each` where `terraform query` is not available (OpenTofu, Terraform
# before 1.14): `import_id` is what an import block's `id` takes, `identity`
# what its `identity` takes (Terraform and OpenTofu 1.12 and later).
data "kubeinfer_disaggregatedsets" "inference" {
  namespace = "inference"
}

output "disaggregatedset_import_ids" {
  value = [for o in data.kubeinfer_disaggregatedsets.inference.items : o.import_id]
}
