package acctest

import (
	"github.com/hashicorp/go-version"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"
)

// Terraform116 is Terraform 1.16.0: action triggers with on_failure, lifecycle { destroy = false }
// and import blocks inside modules (terraform-plugin-testing v1.16 names no version past 1.15).
var Terraform116 = version.Must(version.NewVersion("1.16.0"))

// SkipBelowTerraform116 skips a test case under a CLI older than Terraform 1.16, and under
// OpenTofu, whose versions (1.12) are below it: for the tests of what 1.16 brought.
func SkipBelowTerraform116() []tfversion.TerraformVersionCheck {
	return []tfversion.TerraformVersionCheck{tfversion.SkipBelow(Terraform116)}
}
