// Command tflint-ruleset-kubeinfer is the TFLint plugin of the kubeinfer provider: TFLint starts
// it when a .tflint.hcl has `plugin "kubeinfer" { enabled = true }`. Its rules are in package
// tflintrules; they use the provider's schema and validation, built into this binary.
package main

import (
	"github.com/terraform-linters/tflint-plugin-sdk/plugin"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/tflintrules"
)

// version is the release's version, set by the release build (-X main.version=...).
var version = "dev"

func main() {
	plugin.Serve(&plugin.ServeOpts{RuleSet: tflintrules.RuleSet(version)})
}
