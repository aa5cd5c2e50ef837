//go:build tools

// Package tools pins TFLint (github.com/terraform-linters/tflint, whose main
// package is the module root) so that scripts/tool.sh tflint builds the TFLint
// CLI that runs the tflint-ruleset-kubeinfer plugin in the plugin's integration
// test (internal/tflintrules, KUBEINFER_TFLINT):
//
//	go build -o OUT github.com/terraform-linters/tflint
//
// It is a separate module so the provider's own go.mod never depends on TFLint
// (the plugin itself depends only on github.com/terraform-linters/tflint-plugin-sdk).
package tools

import _ "github.com/terraform-linters/tflint"
