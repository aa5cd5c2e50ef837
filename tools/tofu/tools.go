//go:build tools

// Package tools pins github.com/opentofu/opentofu v1.12.6 so that this module
// can build the OpenTofu CLI the acceptance tests also run under (make test):
//
//	go build -o OUT github.com/opentofu/opentofu/cmd/tofu
//
// `go install github.com/opentofu/opentofu/cmd/tofu@v1.12.6` is refused because
// OpenTofu's go.mod has a replace directive; go.mod here repeats it.
// It is a separate module so the provider's own go.mod never depends on it.
package tools

import _ "github.com/opentofu/opentofu/cmd/tofu"
