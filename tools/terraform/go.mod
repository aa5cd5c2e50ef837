// This module only pins the Terraform 1.14 release that make test runs the
// tests of what 1.14 brought under (resource identity, terraform query,
// generated configuration, actions; dependabot bumps its patch release only;
// tools/terraform-latest pins the newest release). It cannot build Terraform as a
// dependency: Terraform's go.mod replaces ten of its own nested modules
// (internal/backend/remote-state/s3, ... and internal/legacy) with local
// directories, and a module zip on the Go module proxy leaves nested modules
// out. build.sh builds the CLI from the proxy's source of the root module
// instead, without those remote-state backends (see there).
module github.com/kubeinfer/terraform-provider-kubeinfer/tools/terraform

go 1.25

require github.com/hashicorp/terraform v1.14.3
