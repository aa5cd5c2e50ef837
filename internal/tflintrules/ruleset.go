package tflintrules

import (
	"github.com/terraform-linters/tflint-plugin-sdk/tflint"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/providerrules"
)

// typeName is the provider's type name: the prefix of its resource types and the label of its
// provider block.
const typeName = providerrules.TypeName

// RuleSetName is the plugin's name: TFLint runs it as tflint-ruleset-kubeinfer and configures
// it with `plugin "kubeinfer" {}`.
const RuleSetName = typeName

// guideLink is the rules' documentation.
const guideLink = "https://registry.terraform.io/providers/kubeinfer/kubeinfer/latest/docs/guides/linting"

// Rules returns the plugin's rules.
func Rules() []tflint.Rule {
	return []tflint.Rule{NewUnknownAttributeRule(), NewPlanTimeValidationRule()}
}

// RuleSet returns the plugin's rule set, of the given version (the release's, "dev" otherwise).
func RuleSet(version string) *tflint.BuiltinRuleSet {
	return &tflint.BuiltinRuleSet{Name: RuleSetName, Version: version, Rules: Rules()}
}
