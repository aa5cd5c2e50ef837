# The kubeconfig file of each cluster. The provider blocks are configured before
# planning, so these values must be known then (this file, -var, or TF_VAR_kubeconfigs).
kubeconfigs = {
  us_east  = "~/.kube/us-east.yaml"
  eu_west  = "~/.kube/eu-west.yaml"
  ap_south = "~/.kube/ap-south.yaml"
}
