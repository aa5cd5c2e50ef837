package k8sschema

import "github.com/hashicorp/terraform-plugin-go/tftypes"

// ConfiguredOnly removes from body, the JSON form of an object decoded from config, every field
// whose attribute config leaves null. A server-side apply must carry exactly what the
// configuration sets: the server (CRD defaults) and its admission webhooks default the rest, the
// provider's field manager owns only the declared fields, and a field the installed CRD does not
// know is sent only when the user wrote it. Go's JSON encoding alone cannot tell: it writes the
// zero value of every non-pointer struct and of fields without omitempty.
func ConfiguredOnly(n *Node, config tftypes.Value, body map[string]any) {
	if !config.IsKnown() || config.IsNull() || n.Kind != KindObject {
		return
	}
	var attrs map[string]tftypes.Value
	if config.As(&attrs) != nil {
		return
	}
	for k := range body {
		f := n.FieldJSON(k)
		if f == nil || attrs[f.TFName].IsNull() { // no attribute (a Go field the schema leaves out), or unset
			delete(body, k)
			continue
		}
		configuredChild(f, attrs[f.TFName], body[k])
	}
}

// configuredChild prunes the JSON value sent for node n, whose configuration is v.
func configuredChild(n *Node, v tftypes.Value, sent any) {
	if !v.IsKnown() {
		return
	}
	switch n.Kind {
	case KindObject:
		if m, ok := sent.(map[string]any); ok {
			ConfiguredOnly(n, v, m)
		}
	case KindList:
		var elems []tftypes.Value
		l, ok := sent.([]any)
		if !ok || v.As(&elems) != nil || len(elems) != len(l) {
			return
		}
		for i := range elems {
			configuredChild(n.Elem, elems[i], l[i])
		}
	case KindMap:
		var elems map[string]tftypes.Value
		m, ok := sent.(map[string]any)
		if !ok || v.As(&elems) != nil {
			return
		}
		for k := range m {
			if elems[k].IsNull() {
				delete(m, k)
				continue
			}
			configuredChild(n.Elem, elems[k], m[k])
		}
	}
}

// Intent is what an apply sends for the object: the configuration, plus the planned value of each
// attribute the configuration leaves null whose planned value differs from the prior state. The
// plan shows such a change (a planned default reverting a value another actor changed, or the
// default coming back after the user removed the attribute); the approved plan is carried out by
// sending it. Everything else the configuration leaves null stays out of the apply. Computed
// attributes are never sent. prior is null on create: then the intent is the configuration.
func Intent(n *Node, config, plan, prior tftypes.Value) tftypes.Value {
	if prior.IsNull() || !prior.IsKnown() || !plan.IsKnown() || plan.IsNull() || config.IsNull() || !config.IsKnown() {
		return config
	}
	switch n.Kind {
	case KindObject:
		var c, p, q map[string]tftypes.Value
		if config.As(&c) != nil || plan.As(&p) != nil || prior.As(&q) != nil {
			return config
		}
		out := make(map[string]tftypes.Value, len(c))
		changed := false
		for k, cv := range c {
			out[k] = cv
			f := n.Field(k)
			pv, okp := p[k]
			qv, okq := q[k]
			if f == nil || f.Mode == Computed || !okp || !okq {
				continue
			}
			if cv.IsNull() {
				if !pv.IsNull() && pv.IsKnown() && !HasUnknown(pv) && !SemanticEqual(f, pv, qv) {
					out[k], changed = pv, true
				}
				continue
			}
			if nv := Intent(f, cv, pv, qv); !nv.Equal(cv) {
				out[k], changed = nv, true
			}
		}
		if !changed {
			return config
		}
		return tftypes.NewValue(config.Type(), out)
	case KindList:
		var c, p, q []tftypes.Value
		if config.As(&c) != nil || plan.As(&p) != nil || prior.As(&q) != nil || len(c) != len(p) {
			return config
		}
		out := make([]tftypes.Value, len(c))
		changed := false
		for i := range c {
			out[i] = c[i]
			if i < len(q) {
				if nv := Intent(n.Elem, c[i], p[i], q[i]); !nv.Equal(c[i]) {
					out[i], changed = nv, true
				}
			}
		}
		if !changed {
			return config
		}
		return tftypes.NewValue(config.Type(), out)
	case KindMap:
		var c, p, q map[string]tftypes.Value
		if config.As(&c) != nil || plan.As(&p) != nil || prior.As(&q) != nil {
			return config
		}
		out := make(map[string]tftypes.Value, len(c))
		changed := false
		for k, cv := range c {
			out[k] = cv
			pv, okp := p[k]
			qv, okq := q[k]
			if okp && okq {
				if nv := Intent(n.Elem, cv, pv, qv); !nv.Equal(cv) {
					out[k], changed = nv, true
				}
			}
		}
		if !changed {
			return config
		}
		return tftypes.NewValue(config.Type(), out)
	}
	return config
}
