package leaderworkerset

import (
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/k8sschema"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kindrules"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kube"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/leaderworkerset/rules"
)

// Kind is the LeaderWorkerSet kind served by the generic resource: its rules, and the hooks that
// leave spec.replicas to an autoscaler and wait for the rollout and the cleanup.
var Kind = withPlacement(kube.FromRules(rules.Kind, kube.Hooks{
	ApplyBody:   applyBody,
	PlanObject:  planObject,
	AfterApply:  waitForRollout,
	AfterDelete: waitForCleanup,
}))

// NewResource is the kubeinfer_leaderworkerset resource.
func NewResource() resource.Resource { return kube.NewResource(Kind)() }

// NewDataSource is the kubeinfer_leaderworkerset data source.
func NewDataSource() datasource.DataSource { return kube.NewDataSource(Kind)() }

// applyBody leaves spec.replicas out when an autoscaler owns it.
func applyBody(body map[string]any, extras map[string]tftypes.Value) {
	if kindrules.BoolExtra(extras, rules.AttrManageReplicas, true) {
		return
	}
	if spec, ok := body["spec"].(map[string]any); ok {
		delete(spec, "replicas")
	}
}

// planObject keeps the live replica count in the plan when an autoscaler owns it. A written
// spec.replicas stays as written: validation forbids it with manage_replicas = false, and once
// unknown values elsewhere in spec hold that error back until they are known (at apply, before
// anything is sent), the plan must still show the configured value.
func planObject(config, plan, state tftypes.Value, extras map[string]tftypes.Value) tftypes.Value {
	if kindrules.BoolExtra(extras, rules.AttrManageReplicas, true) {
		return plan
	}
	if v, ok := k8sschema.ValueAt(rules.Kind.Node(), config, "spec.replicas"); ok && !v.IsNull() {
		return plan
	}
	var replicas tftypes.Value
	if state.IsNull() {
		replicas = tftypes.NewValue(tftypes.Number, tftypes.UnknownValue)
	} else if v, ok := k8sschema.ValueAt(rules.Kind.Node(), state, "spec.replicas"); ok {
		replicas = v
	} else {
		return plan
	}
	return k8sschema.SetAttrPath(plan, replicas, "spec", "replicas")
}

// attrWaitForRollout names the extra attribute the rollout wait reads.
const attrWaitForRollout = rules.AttrWaitForRollout

// withPlacement adds the placement preview, which speaks the engine's types (kube.PlacementWorkload).
func withPlacement(k *kube.Kind) *kube.Kind {
	k.Placement = planPlacement
	return k
}
