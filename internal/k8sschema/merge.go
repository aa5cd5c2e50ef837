package k8sschema

import (
	"math/big"

	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"k8s.io/apimachinery/pkg/api/resource"
)

// Merge computes the new state of node n from the value the user had (prior: the plan during
// apply, the state during refresh) and the server's (server). Where the two mean the same thing
// (a quantity written differently, an unset field the server filled with its default, an empty
// list the server dropped), the user's spelling is kept so that no false drift appears; where
// they differ, the server wins and the next plan shows the drift.
func Merge(n *Node, prior, server tftypes.Value) tftypes.Value {
	return mergeNode(n, prior, server)
}

func mergeNode(n *Node, prior, server tftypes.Value) tftypes.Value {
	if n.Mode == Computed || !prior.IsKnown() {
		return server
	}
	if prior.IsFullyKnown() && SemanticEqual(n, prior, server) {
		return withComputed(n, prior, server)
	}
	if prior.IsNull() {
		if n.KeysFromPrior {
			return prior
		}
		if n.foreignBelow {
			server = withoutForeignKeys(n, server)
			if server.IsNull() {
				return prior
			}
		}
		if n.Kind == KindObject && !server.IsNull() {
			// The user left the whole object unset and the server holds an empty one.
			if onlyZeroFields(n, server) {
				return prior
			}
		}
		return server
	}
	if server.IsNull() {
		return server
	}
	switch n.Kind {
	case KindObject:
		var pa, sa map[string]tftypes.Value
		_ = prior.As(&pa)
		_ = server.As(&sa)
		out := make(map[string]tftypes.Value, len(n.Fields))
		for _, f := range n.Fields {
			out[f.TFName] = mergeNode(f, pa[f.TFName], sa[f.TFName])
		}
		return tftypes.NewValue(n.TFType(), out)
	case KindList:
		var pl, sl []tftypes.Value
		_ = prior.As(&pl)
		_ = server.As(&sl)
		if len(pl) != len(sl) {
			return server
		}
		out := make([]tftypes.Value, len(sl))
		for i := range sl {
			out[i] = mergeNode(n.Elem, pl[i], sl[i])
		}
		return tftypes.NewValue(n.TFType(), out)
	case KindMap:
		var pm, sm map[string]tftypes.Value
		_ = prior.As(&pm)
		_ = server.As(&sm)
		out := make(map[string]tftypes.Value, len(sm))
		for k, sv := range sm {
			pv, ok := pm[k]
			if !ok {
				if n.KeysFromPrior || n.ForeignKeys[k] {
					continue
				}
				out[k] = sv
				continue
			}
			out[k] = mergeNode(n.Elem, pv, sv)
		}
		if n.KeysFromPrior {
			// Keys the user declared but the server lost show as drift (the user's value is kept
			// out, so the next plan re-adds it).
			if len(out) == 0 {
				return tftypes.NewValue(n.TFType(), map[string]tftypes.Value{})
			}
		}
		return tftypes.NewValue(n.TFType(), out)
	default:
		return server
	}
}

// withoutForeignKeys returns the value v of node n without the foreign keys of the maps in it
// (Node.ForeignKeys; not inside lists), null when nothing else is left: where the user declares
// nothing, a map holding only such keys, or an object holding only such maps, is not drift.
func withoutForeignKeys(n *Node, v tftypes.Value) tftypes.Value {
	if v.IsNull() || !v.IsKnown() || !n.foreignBelow {
		return v
	}
	switch n.Kind {
	case KindMap:
		var m map[string]tftypes.Value
		_ = v.As(&m)
		out := make(map[string]tftypes.Value, len(m))
		for k, e := range m {
			if !n.ForeignKeys[k] {
				out[k] = e
			}
		}
		if len(out) == 0 {
			return tftypes.NewValue(n.TFType(), nil)
		}
		return tftypes.NewValue(n.TFType(), out)
	case KindObject:
		var attrs map[string]tftypes.Value
		_ = v.As(&attrs)
		out := make(map[string]tftypes.Value, len(attrs))
		left := false
		for _, f := range n.Fields {
			fv := withoutForeignKeys(f, attrs[f.TFName])
			out[f.TFName] = fv
			left = left || !fv.IsNull()
		}
		if !left {
			return tftypes.NewValue(n.TFType(), nil)
		}
		return tftypes.NewValue(n.TFType(), out)
	}
	return v
}

// withComputed returns prior with the Computed attributes of object node n (and of its object
// fields) taken from server. SemanticEqual ignores them, but the server owns them: without this a
// refresh that finds the spec unchanged would keep a stale status and resourceVersion.
func withComputed(n *Node, prior, server tftypes.Value) tftypes.Value {
	if n.Kind != KindObject || prior.IsNull() || server.IsNull() {
		return prior
	}
	var pa, sa map[string]tftypes.Value
	_ = prior.As(&pa)
	_ = server.As(&sa)
	var out map[string]tftypes.Value
	for _, f := range n.Fields {
		var v tftypes.Value
		switch {
		case f.Mode == Computed:
			v = sa[f.TFName]
		case f.Kind == KindObject:
			v = withComputed(f, pa[f.TFName], sa[f.TFName])
		default:
			continue
		}
		if !v.Equal(pa[f.TFName]) {
			out = copyOnWrite(out, pa)
			out[f.TFName] = v
		}
	}
	if out == nil {
		return prior
	}
	return tftypes.NewValue(prior.Type(), out)
}

// onlyZeroFields reports whether object value v holds nothing but unset or zero fields.
func onlyZeroFields(n *Node, v tftypes.Value) bool {
	var attrs map[string]tftypes.Value
	if v.As(&attrs) != nil {
		return false
	}
	for _, f := range n.Fields {
		fv := attrs[f.TFName]
		if fv.IsNull() || isZeroLike(f, fv) {
			continue
		}
		return false
	}
	return true
}

// SemanticEqual reports whether a and b mean the same object for node n.
func SemanticEqual(n *Node, a, b tftypes.Value) bool {
	if !a.IsKnown() || !b.IsKnown() {
		return false
	}
	if a.IsNull() || b.IsNull() {
		if a.IsNull() && b.IsNull() {
			return true
		}
		other := a
		if a.IsNull() {
			other = b
		}
		return !n.Pointer && isZeroLike(n, other)
	}
	switch n.Kind {
	case KindString:
		var x, y string
		_ = a.As(&x)
		_ = b.As(&y)
		if x == y || (n.Equivalent != nil && (n.Equivalent[x] == y || n.Equivalent[y] == x)) {
			return true
		}
		if n.Format == FormatQuantity {
			qx, e1 := resource.ParseQuantity(x)
			qy, e2 := resource.ParseQuantity(y)
			return e1 == nil && e2 == nil && qx.Cmp(qy) == 0
		}
		return false
	case KindBool:
		var x, y bool
		_ = a.As(&x)
		_ = b.As(&y)
		return x == y
	case KindInt, KindFloat:
		var x, y big.Float
		_ = a.As(&x)
		_ = b.As(&y)
		return x.Cmp(&y) == 0
	case KindList:
		var x, y []tftypes.Value
		_ = a.As(&x)
		_ = b.As(&y)
		if len(x) != len(y) {
			return false
		}
		for i := range x {
			if !SemanticEqual(n.Elem, x[i], y[i]) {
				return false
			}
		}
		return true
	case KindMap:
		var x, y map[string]tftypes.Value
		_ = a.As(&x)
		_ = b.As(&y)
		if len(x) != len(y) {
			return false
		}
		for k, xv := range x {
			yv, ok := y[k]
			if !ok || !SemanticEqual(n.Elem, xv, yv) {
				return false
			}
		}
		return true
	default:
		var x, y map[string]tftypes.Value
		_ = a.As(&x)
		_ = b.As(&y)
		for _, f := range n.Fields {
			if f.Mode == Computed {
				continue
			}
			if !SemanticEqual(f, x[f.TFName], y[f.TFName]) {
				return false
			}
		}
		return true
	}
}

// isZeroLike reports whether v is what an unset field of node n reads back as: "", 0, false, an
// empty list or map, or an object of such values. A quantity that is not a pointer reads back
// as "0": a Go resource.Quantity is a struct, which encoding/json writes even under omitempty,
// so an object that goes through Go types (the LeaderWorkerSet webhook decodes and re-encodes
// every object it defaults) stores an unset resourceFieldRef.divisor as "0".
func isZeroLike(n *Node, v tftypes.Value) bool {
	if !v.IsKnown() {
		return false
	}
	if v.IsNull() {
		return true
	}
	switch n.Kind {
	case KindString:
		var s string
		_ = v.As(&s)
		if n.Format == FormatQuantity && !n.Pointer {
			q, err := resource.ParseQuantity(s)
			return s == "" || err == nil && q.IsZero()
		}
		return s == "" && n.Format != FormatIntOrString
	case KindBool:
		var b bool
		_ = v.As(&b)
		return !b
	case KindInt, KindFloat:
		var f big.Float
		_ = v.As(&f)
		return f.Sign() == 0
	case KindList:
		var l []tftypes.Value
		_ = v.As(&l)
		return len(l) == 0
	case KindMap:
		var m map[string]tftypes.Value
		_ = v.As(&m)
		return len(m) == 0
	default:
		if n.Pointer {
			return false
		}
		var m map[string]tftypes.Value
		_ = v.As(&m)
		for _, f := range n.Fields {
			if f.Pointer && !m[f.TFName].IsNull() {
				return false
			}
			if !isZeroLike(f, m[f.TFName]) {
				return false
			}
		}
		return true
	}
}

// HasUnknown reports whether v contains an unknown value anywhere.
func HasUnknown(v tftypes.Value) bool {
	return !v.IsFullyKnown()
}

// MarkComputedUnknown marks the computed attributes of node n that the configuration leaves
// null as unknown in the plan, as the framework does when a resource changes. Subtrees without
// such attributes are returned as they are (rebuilding a tftypes value re-checks its whole type).
func MarkComputedUnknown(n *Node, config, plan tftypes.Value) tftypes.Value {
	v, _ := markComputedUnknown(n, config, plan)
	return v
}

func markComputedUnknown(n *Node, config, plan tftypes.Value) (tftypes.Value, bool) {
	if (n.Mode == Computed || n.Mode == OptionalComputed) && config.IsNull() {
		if !plan.IsKnown() {
			return plan, false
		}
		return tftypes.NewValue(n.TFType(), tftypes.UnknownValue), true
	}
	if !config.IsKnown() || config.IsNull() || !plan.IsKnown() || plan.IsNull() {
		return plan, false
	}
	switch n.Kind {
	case KindObject:
		var ca, pa map[string]tftypes.Value
		_ = config.As(&ca)
		_ = plan.As(&pa)
		var out map[string]tftypes.Value
		for _, f := range n.Fields {
			if v, changed := markComputedUnknown(f, ca[f.TFName], pa[f.TFName]); changed {
				out = copyOnWrite(out, pa)
				out[f.TFName] = v
			}
		}
		if out == nil {
			return plan, false
		}
		return tftypes.NewValue(plan.Type(), out), true
	case KindList:
		var cl, pl []tftypes.Value
		_ = config.As(&cl)
		_ = plan.As(&pl)
		if len(cl) != len(pl) {
			return plan, false
		}
		var out []tftypes.Value
		for i := range pl {
			if v, changed := markComputedUnknown(n.Elem, cl[i], pl[i]); changed {
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
	case KindMap:
		var cm, pm map[string]tftypes.Value
		_ = config.As(&cm)
		_ = plan.As(&pm)
		var out map[string]tftypes.Value
		for k, pv := range pm {
			if v, changed := markComputedUnknown(n.Elem, cm[k], pv); changed {
				out = copyOnWrite(out, pm)
				out[k] = v
			}
		}
		if out == nil {
			return plan, false
		}
		return tftypes.NewValue(plan.Type(), out), true
	}
	return plan, false
}

// copyOnWrite returns out, or a copy of src when out is still nil.
func copyOnWrite(out, src map[string]tftypes.Value) map[string]tftypes.Value {
	if out != nil {
		return out
	}
	out = make(map[string]tftypes.Value, len(src))
	for k, v := range src {
		out[k] = v
	}
	return out
}
