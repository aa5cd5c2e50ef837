// Package disaggregatedset serves the DisaggregatedSet kind (disaggregatedset.x-k8s.io/v1,
// released with sigs.k8s.io/lws v0.9.0): the kubeinfer_disaggregatedset resource and data
// source and the kubeinfer_disaggregatedset_role_scaler data source, from their offline rules
// (package rules) and the generic engine (package kube). Its own part talks to the cluster: the
// hooks that leave External roles' replicas to their scalers and record the groups that run
// (scaling.go, running.go), and the rollout and cleanup waits (wait.go).
package disaggregatedset

import (
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/resource"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/disaggregatedset/rules"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kube"
)

// Kind is the DisaggregatedSet kind served by the generic resource: its rules, and the hooks
// for External roles, the waits and the read of the groups that run.
var Kind = withPlacement(kube.FromRules(rules.Kind, kube.Hooks{
	ApplyBody:   applyBody,
	PlanObject:  planObject,
	AfterApply:  afterApply,
	AfterDelete: waitForCleanup,
	AfterRead:   withRunningReplicas,
}))

// NewResource is the kubeinfer_disaggregatedset resource.
func NewResource() resource.Resource { return kube.NewResource(Kind)() }

// NewDataSource is the kubeinfer_disaggregatedset data source.
func NewDataSource() datasource.DataSource { return kube.NewDataSource(Kind)() }

// attrWaitForRollout names the extra attribute the rollout wait reads.
const attrWaitForRollout = rules.AttrWaitForRollout

// withPlacement adds the placement preview, which speaks the engine's types (kube.PlacementWorkload).
func withPlacement(k *kube.Kind) *kube.Kind {
	k.Placement = planPlacement
	return k
}
