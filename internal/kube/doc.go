// Package kube is the one generic resource behind every kind of the provider:
// a Kind (Go type, schema options, defaults, validation, hooks) becomes a
// Terraform resource, data source and list resource that plan offline and
// apply with server-side apply. It also holds the protocol fast path
// (fastpath.go, statecodec.go) that serves the same RPCs without the
// framework's reflection, the ownership and takeover rules of server-side
// apply, API error details and the waits of deletes. The Kubernetes client
// itself is in package kubeclient.
package kube
