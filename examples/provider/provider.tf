terraform {
  required_providers {
    kubeinfer = {
      source = "kubeinfer/kubeinfer"
    }
  }
}

# Use a kubeconfig file, like kubectl. Every attribute can also come from a
# KUBE_* environment variable (here KUBE_CONFIG_PATH and KUBE_CTX), so an
# empty `provider "kubeinfer" {}` block works too.
provider "kubeinfer" {
  config_path    = "~/.kube/config"
  config_context = "inference-prod"
}
