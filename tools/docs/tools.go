//go:build tools

// Package tools pins github.com/hashicorp/terraform-plugin-docs v0.25.0 so that this module can build
// tfplugindocs (make docs):
//
//	go build -o OUT github.com/hashicorp/terraform-plugin-docs/cmd/tfplugindocs
//
// It is a separate module so the provider's own go.mod never depends on it.
// scripts/tool.sh builds the binary once per version into
// ${KUBEINFER_CACHE_DIR:-$HOME/.cache/kubeinfer}/bin.
package tools

import _ "github.com/hashicorp/terraform-plugin-docs/cmd/tfplugindocs"
