# Adopting every LeaderWorkerSet of a namespace where `terraform query` is not
# available (OpenTofu, Terraform before 1.14): the data source lists them, and
# this output writes one import block per object. `tofu apply` (it reads the data
# source only), `tofu output -raw import_blocks > imports.tf`, then
# `tofu plan -generate-config-out=generated.tf` writes the resource blocks
# (configuration generation takes no import block with for_each).
# LeaderWorkerSets a DisaggregatedSet owns are left out.
data "kubeinfer_leaderworkersets" "inference" {
  namespace      = "inference"
  label_selector = "app.kubernetes.io/name=vllm"
}

output "import_blocks" {
  value = join("", [for o in data.kubeinfer_leaderworkersets.inference.items : <<-EOT
    import {
      to = kubeinfer_leaderworkerset.${replace(o.name, "-", "_")}
      id = "${o.import_id}"
    }
    EOT
  ])
}
