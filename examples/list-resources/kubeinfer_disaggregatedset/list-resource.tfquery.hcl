# terraform query (Terraform 1.14 and later) lists the DisaggregatedSets of the
# "inference" namespace, whoever created them. With -generate-config-out=generated.tf
# it writes an import block and a resource block for each.
list "kubeinfer_disaggregatedset" "all" {
  provider         = kubeinfer
  include_resource = true

  config {
    namespace = "inference"
  }
}
