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
