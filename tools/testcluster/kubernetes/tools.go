//go:build tools

// Package tools pins k8s.io/kubernetes so that this module can build the
// control-plane binaries of the test cluster (internal/acctest, make cluster,
// make demo):
//
//	go build -o OUT k8s.io/kubernetes/cmd/kube-apiserver
//	go build -o OUT k8s.io/kubernetes/cmd/kube-controller-manager
//	go build -o OUT k8s.io/kubernetes/cmd/kube-scheduler
//
// It is a separate module so the provider's own go.mod never depends on
// k8s.io/kubernetes.
package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
)
