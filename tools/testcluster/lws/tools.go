//go:build tools

// Package tools pins the released LeaderWorkerSet (sigs.k8s.io/lws) so that
// this module can build its controller-manager for the test cluster:
//
//	go build -o OUT sigs.k8s.io/lws/cmd
//
// tools/testcluster/ensure.sh also copies the release's own CRDs
// (config/crd/bases) and webhook configuration (config/webhook/manifests.yaml)
// from the module next to the binary, so the test cluster installs LWS exactly
// as released. It is a separate module so the provider's go.mod never depends
// on the LWS controller.
package tools

import _ "sigs.k8s.io/lws/cmd"
