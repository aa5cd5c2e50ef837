# One entry per cluster. The provider instances are configured before planning,
# so these values must be known then (a file, -var, or TF_VAR_clusters).
clusters = {
  us-east = {
    config_path    = "~/.kube/config"
    config_context = "us-east"
  }
  eu-west = {
    config_path    = "~/.kube/config"
    config_context = "eu-west"
  }
  ap-south = {
    config_path    = "~/.kube/config"
    config_context = "ap-south"
    replicas       = 1
  }
}
