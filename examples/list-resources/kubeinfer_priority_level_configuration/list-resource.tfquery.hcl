# terraform query (Terraform 1.14 and later) lists the priority levels labelled
# team=inference.
list "kubeinfer_priority_level_configuration" "inference" {
  provider = kubeinfer

  config {
    label_selector = "team=inference"
  }
}
