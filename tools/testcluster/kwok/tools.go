//go:build tools

// Package tools pins KWOK (sigs.k8s.io/kwok), which simulates the nodes of the
// test cluster and the life cycle of the pods scheduled on them (no kubelet, no
// containers):
//
//	go build -o OUT sigs.k8s.io/kwok/cmd/kwok
//
// tools/testcluster/ensure.sh also copies KWOK's own stage definitions
// (kustomize/stage: node initialisation and lease heartbeats, pod ready,
// complete and delete) next to the binary. It is a separate module so the
// provider's go.mod never depends on KWOK.
package tools

import _ "sigs.k8s.io/kwok/cmd/kwok"
