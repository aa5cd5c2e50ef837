//go:build tools

// Package tools pins k8s.io/kubernetes so that this module can build the
// kube-apiserver binary used by the acceptance tests:
//
//	go build -o OUT k8s.io/kubernetes/cmd/kube-apiserver
//
// It is a separate module so the provider's own go.mod never depends on
// k8s.io/kubernetes.
package tools

import _ "k8s.io/kubernetes/cmd/kube-apiserver"
