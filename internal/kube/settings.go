package kube

import (
	"sort"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kindrules"
)

// SettingsAnnotation records the provider-only settings of a resource (force_conflicts, timeouts
// and the kind's boolean extras: wait_for_rollout, manage_replicas, allow_group_restarts) that
// differ from their defaults, on the object itself. They
// are not part of the Kubernetes object, so without it `terraform import` could only guess them
// and the imported state would differ from the state the configuration produced. The provider
// never shows this annotation in state.
const SettingsAnnotation = "terraform.kubeinfer.io/settings"

// settingDefaults are the defaults of the recorded settings of kind k.
func (r *Resource) settingDefaults() map[string]bool {
	out := map[string]bool{kindrules.AttrForceConflicts: kindrules.DefaultForceConflicts}
	for name, v := range r.kind.ExtraDefaults {
		var b bool
		if v.Type() != nil && v.Type().Is(tftypes.Bool) && v.As(&b) == nil {
			out[name] = b
		}
	}
	return out
}

// encodeSettings renders the settings of extras that differ from their defaults ("" if none).
func (r *Resource) encodeSettings(extras map[string]tftypes.Value) string {
	var parts []string
	for name, def := range r.settingDefaults() {
		v, ok := extras[name]
		if !ok || !v.IsKnown() || v.IsNull() {
			continue
		}
		var b bool
		if v.As(&b) == nil && b != def {
			parts = append(parts, name+"="+strconv.FormatBool(b))
		}
	}
	if t, ok := extras[kindrules.AttrTimeouts]; ok && t.IsKnown() && !t.IsNull() {
		for op, v := range ObjectAttrs(t) {
			if d, ok := KnownString(v); ok && !strings.ContainsAny(d, ",=") {
				parts = append(parts, kindrules.AttrTimeouts+"."+op+"="+d)
			}
		}
	}
	sort.Strings(parts)
	return strings.Join(parts, ",")
}

// decodeTimeouts rebuilds the timeouts value of type typ from the recorded settings.
func decodeTimeouts(typ tftypes.Type, annotations map[string]string) tftypes.Value {
	obj, ok := typ.(tftypes.Object)
	if !ok {
		return tftypes.NewValue(typ, nil)
	}
	vals := map[string]tftypes.Value{}
	found := false
	for name, at := range obj.AttributeTypes {
		vals[name] = tftypes.NewValue(at, nil)
	}
	for _, part := range strings.Split(annotations[SettingsAnnotation], ",") {
		key, val, ok := strings.Cut(part, "=")
		op, isTimeout := strings.CutPrefix(key, kindrules.AttrTimeouts+".")
		if !ok || !isTimeout {
			continue
		}
		if at, known := obj.AttributeTypes[op]; known && at.Is(tftypes.String) {
			vals[op] = tftypes.NewValue(tftypes.String, val)
			found = true
		}
	}
	if !found {
		return tftypes.NewValue(typ, nil)
	}
	return tftypes.NewValue(typ, vals)
}

// decodeSettings reads the recorded settings, defaults filled in.
func (r *Resource) decodeSettings(annotations map[string]string) map[string]tftypes.Value {
	out := map[string]tftypes.Value{}
	defs := r.settingDefaults()
	for name, def := range defs {
		out[name] = tftypes.NewValue(tftypes.Bool, def)
	}
	for _, part := range strings.Split(annotations[SettingsAnnotation], ",") {
		name, val, ok := strings.Cut(part, "=")
		if _, known := defs[name]; !ok || !known {
			continue
		}
		if b, err := strconv.ParseBool(val); err == nil {
			out[name] = tftypes.NewValue(tftypes.Bool, b)
		}
	}
	return out
}

// setSettingsAnnotation adds the settings to an apply body (metadata.annotations).
func setSettingsAnnotation(body map[string]any, settings string) {
	if settings != "" {
		setAnnotation(body, SettingsAnnotation, settings)
	}
}

// kubectlLastApplied is the annotation `kubectl apply` (client-side) keeps its own record in.
const kubectlLastApplied = "kubectl.kubernetes.io/last-applied-configuration"

// withoutSettingsAnnotation returns a copy of u without the provider's own annotations (the
// settings and a creation token), and the annotations it had.
func withoutSettingsAnnotation(u *unstructured.Unstructured) (*unstructured.Unstructured, map[string]string) {
	return withoutAnnotations(u, SettingsAnnotation, CreationTokenAnnotation)
}

// withoutAnnotations returns u without the named annotations (a copy when it had any), and the
// annotations it had.
func withoutAnnotations(u *unstructured.Unstructured, names ...string) (*unstructured.Unstructured, map[string]string) {
	ann := u.GetAnnotations()
	found := false
	for _, n := range names {
		if _, ok := ann[n]; ok {
			found = true
		}
	}
	if !found {
		return u, ann
	}
	c := u.DeepCopy()
	rest := make(map[string]string, len(ann))
	for k, v := range ann {
		rest[k] = v
	}
	for _, n := range names {
		delete(rest, n)
	}
	if len(rest) == 0 {
		rest = nil
	}
	c.SetAnnotations(rest)
	return c, ann
}
