# Adopting every LeaderWorkerSet of a namespace where `terraform query` is not
# available (OpenTofu, Terraform before 1.14): the data source lists them, the
# import block imports each, and `tofu plan -generate-config-out=generated.tf`
# writes the resource blocks. LeaderWorkerSets a DisaggregatedSet owns are left out.
data "kubeinfer_leaderworkersets" "inference" {
  namespace      = "inference"
  label_selector = "app.kubernetes.io/name=vllm"
}

import {
  for_each = { for o in data.kubeinfer_leaderworkersets.inference.items : o.name => o }
  to       = kubeinfer_leaderworkerset.adopted[each.key]
  id       = each.value.import_id
}
