package kube

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/k8sschema"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kindrules"
)

// ModifyPlan plans the server's defaults, the identifier and replacements.
func (r *Resource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	var private []byte
	if req.Private != nil {
		private = rawPrivate(ctx, req.Private, &resp.Diagnostics)
	}
	planned, replace, diags := r.PlanChange(ctx, req.Config.Raw, req.Plan.Raw, req.State.Raw, private)
	resp.Plan.Raw = planned
	resp.RequiresReplace = append(resp.RequiresReplace, replace...)
	resp.Diagnostics.Append(diags...)
}

// PlanChange computes the planned value from the configuration, Terraform's proposed value
// (plan) and the prior state: the server's defaults for unset fields, the identifier, the
// fields whose change forces a replacement, and update-time rules.
//
// private is the prior state's private state (the framework's encoding). It tells whether the
// last apply recorded the object without seeing its wait finish: the plan is then an update,
// at least one that only waits (warnCarryOnWait says so). It holds the last refresh's record of
// the attributes other field managers own: the plan warns when it removes one of them. And it
// says whether the last refresh found the object last applied by another configuration.
func (r *Resource) PlanChange(ctx context.Context, config, plan, prior tftypes.Value, private []byte) (tftypes.Value, path.Paths, diag.Diagnostics) {
	waitPending := HasWaitPending(private)
	planned, replace, diags := r.planOnce(config, plan, prior)
	if !prior.IsNull() && plan.Equal(prior) && !diags.HasError() && (waitPending || !planned.Equal(prior)) {
		// Terraform proposed no change, but a planned default sets back a value another actor
		// changed, or the wait is carried on: the object changes while the apply runs (the
		// controller writes status during a rollout), so the server's computed attributes
		// (resourceVersion, generation, status) are unknown, as for any change.
		planned, replace, diags = r.planOnce(config, r.MarkComputedUnknown(config, plan), prior)
	}
	if waitPending && !prior.IsNull() && len(replace) == 0 && !diags.HasError() {
		warnCarryOnWait(&diags)
	}
	if len(replace) == 0 && !diags.HasError() {
		diags.Append(r.foreignRemovalWarning(ForeignOwned(private), planned, prior)...)
	}
	if meta, ok := metaFromAttrs(ObjectAttrs(prior)); ok && !diags.HasError() {
		diags.Append(r.otherConfigurationWarning(private, meta)...)
	}
	if !diags.HasError() {
		diags.Append(r.placementPreview(ctx, planned, prior)...)
	}
	return planned, replace, diags
}

// MarkComputedUnknown marks the object's computed attributes the configuration leaves null as
// unknown (the identifier stays: it never changes in place).
func (r *Resource) MarkComputedUnknown(config, plan tftypes.Value) tftypes.Value {
	cattrs := ObjectAttrs(config)
	attrs := ObjectAttrs(plan)
	for _, f := range r.kind.Node().Fields {
		attrs[f.TFName] = k8sschema.MarkComputedUnknown(f, cattrs[f.TFName], attrs[f.TFName])
	}
	return tftypes.NewValue(plan.Type(), attrs)
}

func (r *Resource) planOnce(config, plan, prior tftypes.Value) (tftypes.Value, path.Paths, diag.Diagnostics) {
	var diags diag.Diagnostics
	if plan.IsNull() {
		return plan, nil, nil // destroy
	}
	node := r.kind.Node()
	// Defaults come from the configuration, not the prior state, so that a value changed out of
	// band in a field the user left to its default shows as drift.
	defaulted := r.kind.NewObject()
	k8sschema.Decode(node, config, defaulted, nil)
	if r.kind.Defaults != nil {
		r.kind.Defaults(defaulted, config)
	}
	planned := k8sschema.PlanDefaults(node, config, plan, defaulted)
	if r.kind.Hooks.PlanObject != nil {
		planned = r.kind.Hooks.PlanObject(config, planned, prior, ObjectAttrs(planned))
	}
	attrs := ObjectAttrs(planned)
	if id, ok := r.plannedID(attrs); ok {
		attrs[kindrules.AttrID] = tftypes.NewValue(tftypes.String, id)
	} else {
		// The name or namespace is not known yet: neither is the identifier (the proposed value
		// is the prior one, which the apply may not keep).
		attrs[kindrules.AttrID] = tftypes.NewValue(tftypes.String, tftypes.UnknownValue)
	}
	planned = tftypes.NewValue(plan.Type(), attrs)
	newObj := r.kind.NewObject()
	dec := k8sschema.Decode(node, planned, newObj, nil)
	planned = r.planDerived(planned, prior, newObj, dec.Unknown)
	if prior.IsNull() {
		return planned, nil, nil
	}

	oldObj := r.kind.NewObject()
	k8sschema.Decode(node, prior, oldObj, nil)
	var replace []*field.Path
	oldMeta, newMeta := metaOf(oldObj), metaOf(newObj)
	// A name or namespace not known yet may differ from the prior one once known: the plan
	// cannot turn an update into a replacement at apply, so it plans the replacement now (as a
	// framework RequiresReplace does for an unknown value), and the identifier is unknown.
	if oldMeta.name != newMeta.name || unknownAt(dec, "metadata.name") || unknownAt(dec, "metadata") {
		replace = append(replace, field.NewPath("metadata", "name"))
	}
	if r.kind.Namespaced && (oldMeta.namespace != newMeta.namespace || unknownAt(dec, "metadata.namespace") || unknownAt(dec, "metadata")) {
		replace = append(replace, field.NewPath("metadata", "namespace"))
	}
	if r.kind.ReplaceOn != nil {
		replace = append(replace, r.kind.ReplaceOn(newObj, oldObj, dec.Unknown)...)
	}
	var paths path.Paths
	for _, p := range replace {
		ap, _ := k8sschema.AttributePath(node, p.String())
		paths = append(paths, ap)
	}
	if r.kind.ValidateUpdate != nil && len(replace) == 0 {
		diags.Append(k8sschema.Diagnostics(node, r.kind.ValidateUpdate(newObj, oldObj), dec.Unknown)...)
	}
	if len(replace) == 0 {
		planned = keepStableOnUpdate(planned, prior)
		if r.kind.PlanUpdate != nil {
			warnings, errs := r.kind.PlanUpdate(newObj, oldObj, ObjectAttrs(planned), dec.Unknown)
			diags.Append(warningDiags(node, warnings)...)
			diags.Append(k8sschema.Diagnostics(node, errs, nil)...) // the hook weighs the unknown values itself
		}
	}
	return planned, paths, diags
}

// planDerived sets the Derived attributes of the planned value from the planned object:
// unknown while the spec has unknown values. A prior state written before an attribute
// existed keeps it null when nothing else changes, so that a provider upgrade plans no update
// (the next refresh or apply records it).
func (r *Resource) planDerived(planned, prior tftypes.Value, obj runtime.Object, unknown []*field.Path) tftypes.Value {
	if r.kind.Derive == nil {
		return planned
	}
	attrs := ObjectAttrs(planned)
	types := r.derivedTypes(planned)
	specUnknown := false
	for _, p := range unknown {
		if p.Root().String() == "spec" {
			specUnknown = true
			break
		}
	}
	var values map[string]tftypes.Value
	if !specUnknown {
		values = r.kind.Derive(obj, types)
	}
	for name, t := range types {
		if v, ok := values[name]; ok {
			attrs[name] = v
		} else {
			attrs[name] = tftypes.NewValue(t, tftypes.UnknownValue)
		}
	}
	if !prior.IsNull() && prior.IsKnown() {
		priorAttrs := ObjectAttrs(prior)
		upgraded := map[string]tftypes.Value{}
		for name, t := range types {
			if pv, ok := priorAttrs[name]; ok && pv.IsNull() {
				upgraded[name] = tftypes.NewValue(t, nil)
			}
		}
		if len(upgraded) > 0 && equalExcept(attrs, priorAttrs, types) {
			for name, v := range upgraded {
				attrs[name] = v
			}
		}
	}
	return tftypes.NewValue(planned.Type(), attrs)
}

// derivedTypes are the Terraform types of the Derived attributes in a resource value.
func (r *Resource) derivedTypes(v tftypes.Value) map[string]tftypes.Type {
	obj, _ := v.Type().(tftypes.Object)
	types := make(map[string]tftypes.Type, len(r.kind.Derived))
	for name := range r.kind.Derived {
		if t, ok := obj.AttributeTypes[name]; ok {
			types[name] = t
		}
	}
	return types
}

// equalExcept reports whether two attribute maps are equal outside the skipped names.
func equalExcept(a, b map[string]tftypes.Value, skip map[string]tftypes.Type) bool {
	for name, v := range a {
		if _, ok := skip[name]; ok {
			continue
		}
		if !v.Equal(b[name]) {
			return false
		}
	}
	return true
}

// stableOnUpdate are the metadata attributes an in-place update never changes: the plan keeps
// their prior value instead of "(known after apply)", which reads like a replacement.
var stableOnUpdate = []string{"uid", "creation_timestamp"}

// keepStableOnUpdate sets the stableOnUpdate attributes the plan leaves unknown to their prior value.
func keepStableOnUpdate(planned, prior tftypes.Value) tftypes.Value {
	attrs := ObjectAttrs(planned)
	meta, priorMeta := ObjectAttrs(attrs["metadata"]), ObjectAttrs(ObjectAttrs(prior)["metadata"])
	changed := false
	for _, name := range stableOnUpdate {
		if v, ok := meta[name]; ok && !v.IsKnown() && !priorMeta[name].IsNull() && priorMeta[name].IsKnown() {
			meta[name] = priorMeta[name]
			changed = true
		}
	}
	if !changed {
		return planned
	}
	attrs["metadata"] = tftypes.NewValue(attrs["metadata"].Type(), meta)
	return tftypes.NewValue(planned.Type(), attrs)
}

// warningDiags converts kind warnings to diagnostics on their attribute (on the resource when
// the path is nil).
func warningDiags(node *k8sschema.Node, warnings []Warning) diag.Diagnostics {
	var diags diag.Diagnostics
	for _, w := range warnings {
		if w.Path == nil {
			diags.AddWarning(w.Summary, w.Detail)
			continue
		}
		p, _ := k8sschema.AttributePath(node, w.Path.String())
		diags.AddAttributeWarning(p, w.Summary, fmt.Sprintf("%s: %s", p, w.Detail))
	}
	return diags
}

func unknownAt(d *k8sschema.Decoded, p string) bool {
	for _, u := range d.Unknown {
		if u.String() == p {
			return true
		}
	}
	return false
}

func (r *Resource) plannedID(attrs map[string]tftypes.Value) (string, bool) {
	meta, ok := attrs["metadata"]
	if !ok || !meta.IsKnown() || meta.IsNull() {
		return "", false
	}
	var m map[string]tftypes.Value
	_ = meta.As(&m)
	name, ok1 := KnownString(m["name"])
	if !ok1 {
		return "", false
	}
	if !r.kind.Namespaced {
		return name, true
	}
	ns, ok2 := KnownString(m["namespace"])
	if !ok2 {
		return "", false
	}
	return ns + "/" + name, true
}
