# Connect with an API server address, its CA certificate and a bearer token,
# for example the outputs of the module that created the cluster. Nothing is
# contacted while the provider is configured, so these values may be unknown
# until apply.
variable "cluster_endpoint" {
  type        = string
  description = "https:// address of the Kubernetes API server."
}

variable "cluster_ca_certificate" {
  type        = string
  description = "PEM-encoded CA certificate of the API server."
}

variable "token" {
  type        = string
  sensitive   = true
  description = "Bearer token of a service account allowed to manage the resources."
}

provider "kubeinfer" {
  host                   = var.cluster_endpoint
  cluster_ca_certificate = var.cluster_ca_certificate
  token                  = var.token
}
