package disaggregatedset

import (
	"fmt"

	"github.com/hashicorp/terraform-plugin-go/tftypes"

	disaggv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/disaggregatedset/v1"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/disaggregatedset/rules"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/k8sschema"
)

// External reports whether a role is scaled by a DisaggregatedSetRoleScaler (v0.10.0
// RoleScalingExternal): its spec.replicas is ignored by the controller.
// ScalerName is the name of the DisaggregatedSetRoleScaler the v0.10.0 controller creates for an
// External role (pkg/controllers/disaggregatedset/scaler_manager.go: "<set>-<role>").
// applyBody leaves the replicas of External roles out of the apply body: their count belongs to the
// role scaler's autoscaler, the controller ignores the role's own value, and the provider neither
// sets nor takes it (the LeaderWorkerSet's manage_replicas = false contract, per role). The hand-over
// and the refresh's ownership warnings call it on the live object too, so the field stays with
// whichever manager wrote it.
func applyBody(body map[string]any, _ map[string]tftypes.Value) {
	spec, _ := body["spec"].(map[string]any)
	roles, _ := spec["roles"].([]any)
	for _, r := range roles {
		role, _ := r.(map[string]any)
		scaling, _ := role["scaling"].(map[string]any)
		if mode, _ := scaling["mode"].(string); mode != string(disaggv1.RoleScalingExternal) {
			continue
		}
		if rs, ok := role["spec"].(map[string]any); ok {
			delete(rs, "replicas")
		}
	}
}

// planObject plans an External role's replicas as the value recorded in state, the groups that
// run (running.go; whatever another manager wrote is not drift) when the role was External
// before too; on a create, or when a role becomes External (the provider stops sending the
// value, and the controller seeds the role scaler with the groups that run), the value is known
// only after apply. A written value stays as written (validation forbids it; see
// leaderworkerset's planObject for why the plan must still show it).
func planObject(config, plan, state tftypes.Value, _ map[string]tftypes.Value) tftypes.Value {
	n := rules.Kind.Node()
	rolesVal, ok := k8sschema.ValueAt(n, plan, "spec.roles")
	if !ok || !rolesVal.IsKnown() || rolesVal.IsNull() {
		return plan
	}
	var roles []tftypes.Value
	if rolesVal.As(&roles) != nil {
		return plan
	}
	priorRoles := map[string]tftypes.Value{}
	if !state.IsNull() && state.IsKnown() {
		if v, ok := k8sschema.ValueAt(n, state, "spec.roles"); ok && v.IsKnown() && !v.IsNull() {
			var prior []tftypes.Value
			if v.As(&prior) == nil {
				for _, p := range prior {
					if name, ok := stringAttr(p, "name"); ok {
						priorRoles[name] = p
					}
				}
			}
		}
	}
	changed := false
	out := make([]tftypes.Value, len(roles))
	for i, role := range roles {
		out[i] = role
		if !roleExternal(role) {
			continue
		}
		if v, ok := k8sschema.ValueAt(n, config, fmt.Sprintf("spec.roles[%d].spec.replicas", i)); ok && !v.IsNull() {
			continue
		}
		replicas := tftypes.NewValue(tftypes.Number, tftypes.UnknownValue)
		if name, ok := stringAttr(role, "name"); ok {
			if prior, ok := priorRoles[name]; ok && roleExternal(prior) {
				if v, ok := attrAt(prior, "spec", "replicas"); ok {
					replicas = v
				}
			}
		}
		out[i] = k8sschema.SetAttrPath(role, replicas, "spec", "replicas")
		changed = true
	}
	if !changed {
		return plan
	}
	return k8sschema.SetAttrPath(plan, tftypes.NewValue(rolesVal.Type(), out), "spec", "roles")
}

// roleExternal reports whether a role value (planned or prior) has scaling.mode = "External".
func roleExternal(role tftypes.Value) bool {
	v, ok := attrAt(role, "scaling", "mode")
	if !ok || !v.IsKnown() || v.IsNull() {
		return false
	}
	var s string
	return v.As(&s) == nil && s == string(disaggv1.RoleScalingExternal)
}

// stringAttr is a known string attribute of an object value.
func stringAttr(v tftypes.Value, name string) (string, bool) {
	a, ok := attrAt(v, name)
	if !ok || !a.IsKnown() || a.IsNull() {
		return "", false
	}
	var s string
	return s, a.As(&s) == nil
}

// attrAt follows attribute names from an object value.
func attrAt(v tftypes.Value, names ...string) (tftypes.Value, bool) {
	for _, name := range names {
		if !v.IsKnown() || v.IsNull() {
			return tftypes.Value{}, false
		}
		var attrs map[string]tftypes.Value
		if v.As(&attrs) != nil {
			return tftypes.Value{}, false
		}
		next, ok := attrs[name]
		if !ok {
			return tftypes.Value{}, false
		}
		v = next
	}
	return v, true
}
