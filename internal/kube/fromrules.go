package kube

import "github.com/kubeinfer/terraform-provider-kubeinfer/internal/kindrules"

// FromRules is the kind whose offline rules are r (package kindrules: schema, defaults,
// validation), served with hooks that talk to the cluster. The node tree is r's, built once.
func FromRules(r *kindrules.Kind, hooks Hooks) *Kind {
	return &Kind{Kind: r, Hooks: hooks}
}
