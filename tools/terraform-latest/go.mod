// This module only pins the newest Terraform CLI release, which make test runs
// every acceptance test under (dependabot bumps it). tools/terraform/build.sh
// builds it (see tools/terraform/go.mod for why it cannot be built as a
// dependency of this module).
module github.com/kubeinfer/terraform-provider-kubeinfer/tools/terraform-latest

go 1.26.8

require github.com/hashicorp/terraform v1.16.3
