package k8sschema

import (
	"reflect"

	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// The defaults the provider plans: OptionalComputed attributes the configuration leaves null take
// the value the server's defaults give them (FillDefaults, PlanDefaults), and the structural
// defaults of Options.TypeDefaults (ApplyNodeDefaults).

// FillDefaults returns the plan for node n in which every OptionalComputed attribute the user
// left unset (null in config) takes the value the provider computed (defaulted, from the same
// plan after applying the server's defaults). Values the user set, and unknown values, are kept.
func FillDefaults(n *Node, config, plan, defaulted tftypes.Value) tftypes.Value {
	if !config.IsKnown() || !plan.IsKnown() && !config.IsNull() {
		return plan
	}
	if n.Mode == Computed {
		return plan
	}
	if config.IsNull() {
		if n.Mode == OptionalComputed {
			return defaulted
		}
		return plan
	}
	if plan.IsNull() || !plan.IsKnown() || defaulted.IsNull() || !defaulted.IsKnown() {
		return plan
	}
	switch n.Kind {
	case KindObject:
		var ca, pa, da map[string]tftypes.Value
		_ = config.As(&ca)
		_ = plan.As(&pa)
		_ = defaulted.As(&da)
		out := make(map[string]tftypes.Value, len(pa))
		for k, v := range pa {
			out[k] = v
		}
		for _, f := range n.Fields {
			if cv, ok := ca[f.TFName]; ok {
				out[f.TFName] = FillDefaults(f, cv, pa[f.TFName], da[f.TFName])
			}
		}
		return tftypes.NewValue(plan.Type(), out)
	case KindList:
		var cl, pl, dl []tftypes.Value
		_ = config.As(&cl)
		_ = plan.As(&pl)
		_ = defaulted.As(&dl)
		if len(cl) != len(pl) || len(pl) != len(dl) {
			return plan
		}
		out := make([]tftypes.Value, len(pl))
		for i := range pl {
			out[i] = FillDefaults(n.Elem, cl[i], pl[i], dl[i])
		}
		return tftypes.NewValue(plan.Type(), out)
	}
	return plan
}

// PlanDefaults returns the plan for node n in which every OptionalComputed attribute the user
// left unset (null in config) takes its value in defaulted, the Go object after the server's
// defaulting, with the nodes' own Defaults. It is FillDefaults(n, config, plan,
// ApplyNodeDefaults(n, Encode(n, defaulted))) without encoding the whole object: only the
// subtrees it uses are encoded, and unchanged subtrees are returned as they are.
func PlanDefaults(n *Node, config, plan tftypes.Value, defaulted any) tftypes.Value {
	rv := reflect.ValueOf(defaulted)
	if rv.Kind() == reflect.Pointer {
		if rv.IsNil() {
			return plan
		}
		rv = rv.Elem()
	}
	v, _ := planDefaults(n, config, plan, rv, true)
	return v
}

// planDefaults is FillDefaults for the Go value rv of node n (as encode takes it; an invalid
// rv is an absent embedded struct).
func planDefaults(n *Node, config, plan tftypes.Value, rv reflect.Value, root bool) (tftypes.Value, bool) {
	if !config.IsKnown() || !plan.IsKnown() && !config.IsNull() || n.Mode == Computed {
		return plan, false
	}
	if config.IsNull() {
		if n.Mode == OptionalComputed {
			return defaultedValue(n, rv), true
		}
		return plan, false
	}
	if plan.IsNull() || !plan.IsKnown() || (n.Kind != KindObject && n.Kind != KindList) {
		return plan, false
	}
	if !root && encodesNull(n, rv) {
		return plan, false
	}
	if n.Pointer && !root {
		rv = rv.Elem()
	}
	switch n.Kind {
	case KindObject:
		var ca, pa map[string]tftypes.Value
		_ = config.As(&ca)
		_ = plan.As(&pa)
		var out map[string]tftypes.Value
		for _, f := range n.Fields {
			cv, ok := ca[f.TFName]
			if !ok {
				continue
			}
			fv, present := readField(rv, f.index)
			if !present {
				fv = reflect.Value{}
			}
			if v, changed := planDefaults(f, cv, pa[f.TFName], fv, false); changed {
				out = copyOnWrite(out, pa)
				out[f.TFName] = v
			}
		}
		if out == nil {
			return plan, false
		}
		return tftypes.NewValue(plan.Type(), out), true
	default: // KindList
		var cl, pl []tftypes.Value
		_ = config.As(&cl)
		_ = plan.As(&pl)
		if len(cl) != len(pl) || len(pl) != rv.Len() {
			return plan, false
		}
		var out []tftypes.Value
		for i := range pl {
			if v, changed := planDefaults(n.Elem, cl[i], pl[i], rv.Index(i), false); changed {
				if out == nil {
					out = append([]tftypes.Value(nil), pl...)
				}
				out[i] = v
			}
		}
		if out == nil {
			return plan, false
		}
		return tftypes.NewValue(plan.Type(), out), true
	}
}

// defaultedValue is the value ApplyNodeDefaults(Encode(...)) gives node n for Go value rv.
func defaultedValue(n *Node, rv reflect.Value) tftypes.Value {
	v := NullValue(n)
	if rv.IsValid() {
		v = encode(n, rv)
	}
	if v.IsNull() && n.Default != nil {
		return tftypes.NewValue(n.TFType(), n.Default)
	}
	return ApplyNodeDefaults(n, v)
}

// encodesNull reports whether encode gives null for the Go value rv of an object or list node.
func encodesNull(n *Node, rv reflect.Value) bool {
	if !rv.IsValid() {
		return true
	}
	if n.Pointer {
		if rv.IsNil() {
			return true
		}
		rv = rv.Elem()
	}
	if n.Kind == KindList {
		return rv.IsNil()
	}
	return !n.Pointer && rv.IsZero() && n.Mode != Computed
}

// ApplyNodeDefaults sets every null field that has a Default (see Options.TypeDefaults) to that
// default, throughout value v of node n.
func ApplyNodeDefaults(n *Node, v tftypes.Value) tftypes.Value {
	if !v.IsKnown() || v.IsNull() {
		return v
	}
	switch n.Kind {
	case KindObject:
		var attrs map[string]tftypes.Value
		_ = v.As(&attrs)
		out := make(map[string]tftypes.Value, len(attrs))
		for k, x := range attrs {
			out[k] = x
		}
		for _, f := range n.Fields {
			fv, ok := attrs[f.TFName]
			if !ok {
				continue
			}
			if fv.IsNull() && f.Default != nil {
				out[f.TFName] = tftypes.NewValue(f.TFType(), f.Default)
				continue
			}
			out[f.TFName] = ApplyNodeDefaults(f, fv)
		}
		return tftypes.NewValue(v.Type(), out)
	case KindList:
		var l []tftypes.Value
		_ = v.As(&l)
		out := make([]tftypes.Value, len(l))
		for i := range l {
			out[i] = ApplyNodeDefaults(n.Elem, l[i])
		}
		return tftypes.NewValue(v.Type(), out)
	case KindMap:
		var m map[string]tftypes.Value
		_ = v.As(&m)
		out := make(map[string]tftypes.Value, len(m))
		for k, x := range m {
			out[k] = ApplyNodeDefaults(n.Elem, x)
		}
		return tftypes.NewValue(v.Type(), out)
	}
	return v
}
