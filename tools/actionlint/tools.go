//go:build tools

// Package tools pins actionlint, which checks .github/workflows in `make test`
// (the workflows cannot run on this project's machines).
package tools

import _ "github.com/rhysd/actionlint/cmd/actionlint"
