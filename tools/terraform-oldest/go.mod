// This module only pins the oldest Terraform CLI the documentation claims
// (1.8: provider-defined functions), which make test smoke-tests the provider
// under. tools/terraform/build.sh builds it (see tools/terraform/go.mod).
module github.com/kubeinfer/terraform-provider-kubeinfer/tools/terraform-oldest

go 1.22.0

require github.com/hashicorp/terraform v1.8.5
