package acctest

import (
	"encoding/json"
	"os"
	"os/exec"
	"testing"

	"github.com/hashicorp/go-version"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"
)

// Terraform116 is Terraform 1.16.0: action triggers with on_failure, lifecycle { destroy = false }
// and import blocks inside modules (terraform-plugin-testing v1.16 names no version past 1.15).
var Terraform116 = version.Must(version.NewVersion("1.16.0"))

// OpenTofu112 is OpenTofu 1.12.0, the first OpenTofu with lifecycle { destroy = false }.
var OpenTofu112 = version.Must(version.NewVersion("1.12.0"))

// UnderOpenTofu reports whether the tests run under OpenTofu: useCLI points
// terraform-plugin-testing's configurations at registry.opentofu.org for it.
func UnderOpenTofu() bool { return os.Getenv("TF_ACC_PROVIDER_HOST") == "registry.opentofu.org" }

// SkipBelowTerraform116 skips a test case under a CLI older than Terraform 1.16, and under
// OpenTofu, whose versions (1.12) are below it: for the tests of what 1.16 brought.
func SkipBelowTerraform116() []tfversion.TerraformVersionCheck {
	return []tfversion.TerraformVersionCheck{tfversion.SkipBelow(Terraform116)}
}

// CLIVersion is the version the CLI at path reports (version -json; OpenTofu reports its own
// version under the same key), for a test that runs the CLI itself.
func CLIVersion(t testing.TB, path string) *version.Version {
	t.Helper()
	var ver struct {
		Version string `json:"terraform_version"`
	}
	out, err := exec.Command(path, "version", "-json").Output()
	if err != nil {
		t.Fatalf("%s version -json: %v", path, err)
	}
	if err := json.Unmarshal(out, &ver); err != nil {
		t.Fatalf("%s version -json: %v\n%s", path, err, out)
	}
	v, err := version.NewVersion(ver.Version)
	if err != nil {
		t.Fatalf("%s version -json: %v", path, err)
	}
	return v
}
