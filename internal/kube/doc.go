// Package kube is the one generic resource behind every kind of the provider:
// a Kind (Go type, schema options, defaults, validation, hooks) becomes a
// Terraform resource, data source and list resource that plan offline and
// apply with server-side apply. It also holds the ownership and takeover
// rules of server-side apply, API error details and the waits of deletes.
// The Kubernetes client itself is in package kubeclient; package protocol
// serves the same resources' RPCs without the framework's per-attribute
// walk, by calling the Resource methods that work on raw tftypes values
// (ValidateRaw, PlanChange, ApplyRaw, ReadRaw, ...).
//
// The Resource is kept one file a verb: resource.go (the Kind, the schema and the framework
// glue), validate.go, plan.go, apply.go (create and update), read.go, delete.go, import.go and
// identity.go.
package kube
