# terraform query (Terraform 1.14 and later) lists every FlowSchema of the
# cluster.
list "kubeinfer_flow_schema" "all" {
  provider = kubeinfer
  config {}
}
