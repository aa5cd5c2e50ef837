//go:build tools

// Package tools pins github.com/goreleaser/goreleaser/v2 v2.16.0 so that this module can build
// goreleaser (make release-snapshot, scripts/release-check.sh):
//
//	go build -o OUT github.com/goreleaser/goreleaser/v2
//
// It is a separate module so the provider's own go.mod never depends on it.
// scripts/tool.sh builds the binary once per version into
// ${KUBEINFER_CACHE_DIR:-$HOME/.cache/kubeinfer}/bin.
package tools

import _ "github.com/goreleaser/goreleaser/v2"
