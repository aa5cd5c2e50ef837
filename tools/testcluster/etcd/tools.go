//go:build tools

// Package tools pins go.etcd.io/etcd/server/v3 so that this module can build
// the etcd binary used by the acceptance tests:
//
//	go build -o OUT go.etcd.io/etcd/server/v3
//
// It is a separate module so the provider's own go.mod never depends on etcd.
package tools

import _ "go.etcd.io/etcd/server/v3"
