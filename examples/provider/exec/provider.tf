# Short-lived credentials from a client-go credential plugin, here the AWS CLI
# for an EKS cluster. `exec` is a block, written exactly like the exec block of
# the hashicorp/kubernetes provider.
variable "cluster_name" {
  type = string
}

variable "cluster_endpoint" {
  type = string
}

variable "cluster_ca_certificate" {
  type        = string
  description = "PEM-encoded CA certificate (base64-decode the value EKS returns)."
}

provider "kubeinfer" {
  host                   = var.cluster_endpoint
  cluster_ca_certificate = var.cluster_ca_certificate
  exec {
    api_version = "client.authentication.k8s.io/v1beta1"
    command     = "aws"
    args        = ["eks", "get-token", "--cluster-name", var.cluster_name]
  }
}
