//go:build tools

// Package tools pins github.com/golangci/golangci-lint/v2 v2.15.0 so that this module can build
// golangci-lint (make lint):
//
//	go build -o OUT github.com/golangci/golangci-lint/v2/cmd/golangci-lint
//
// It is a separate module so the provider's own go.mod never depends on it.
// scripts/tool.sh builds the binary once per version into
// ${KUBEINFER_CACHE_DIR:-$HOME/.cache/kubeinfer}/bin.
package tools

import _ "github.com/golangci/golangci-lint/v2/cmd/golangci-lint"
