//go:build tools

// Package tools pins OPA, the policy engine that `make test` runs on plan JSON
// (examples/policy, internal/examplestest TestAccExample_policy).
package tools

import _ "github.com/open-policy-agent/opa"
