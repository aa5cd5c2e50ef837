package kube

import (
	"fmt"
	"math/big"
	"sort"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/k8sschema"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kindrules"
)

// An apply takes back the fields the resource manages (force_conflicts, the default), so a plan
// that sets back a value another field manager changed is carried out. Taking a field from
// someone is decided when the plan is approved, so the refresh that finds such a change says so
// then: which attributes, their values and who owns them now, from the metadata.managedFields of
// the object the refresh reads anyway.

// Bounds of the takeover warning.
const (
	maxTakeoverLines = 5
	maxValueLen      = 60
)

// drift is an attribute the state records (configured or planned) whose server value changed.
type drift struct {
	path     string // Kubernetes field path: spec.containers[0].image, metadata.labels[app]
	steps    []any  // the same path as JSON keys (string) and list indexes (int)
	was, now tftypes.Value
}

// fieldOwner is an entry of metadata.managedFields.
type fieldOwner struct {
	manager, operation, subresource string
}

func (o fieldOwner) String() string {
	s := fmt.Sprintf("%q (%s", o.manager, o.operation)
	if o.subresource != "" {
		s += " of the " + o.subresource + " subresource"
	}
	return s + ")"
}

// takeoverWarning warns about the attributes of prior whose value in the object u (refreshed:
// the new state) differs and that a field manager other than the provider's owns: the next
// plan sets them back, and the apply takes them over or, with force_conflicts = false, fails.
// Attributes the apply never sends (Hooks.ApplyBody: replicas left to an autoscaler) are not
// taken and not reported.
func (r *Resource) takeoverWarning(prior, refreshed tftypes.Value, u *unstructured.Unstructured) diag.Diagnostics {
	node := r.kind.Node()
	priorAttrs, nowAttrs := ObjectAttrs(prior), ObjectAttrs(refreshed)
	var drifts []drift
	for _, f := range node.Fields {
		was, ok1 := priorAttrs[f.TFName]
		now, ok2 := nowAttrs[f.TFName]
		if ok1 && ok2 {
			driftsOf(f, was, now, f.JSONName, []any{f.JSONName}, &drifts)
		}
	}
	if len(drifts) == 0 {
		return nil
	}
	if r.kind.Hooks.ApplyBody != nil {
		body := u.DeepCopy().Object
		r.kind.Hooks.ApplyBody(body, priorAttrs)
		kept := drifts[:0]
		for _, d := range drifts {
			if hasPath(body, d.steps) {
				kept = append(kept, d)
			}
		}
		drifts = kept
	}
	owned := r.foreignOwners(u)
	var lines []string
	for _, d := range drifts {
		owners := ownersOf(d.path, owned)
		if len(owners) == 0 {
			continue // nobody else owns it (removed, or still ours): the apply restores it without conflict
		}
		p, _ := k8sschema.AttributePath(node, d.path)
		lines = append(lines, fmt.Sprintf("  %s = %s (was %s), owned by %s", p, shortValue(d.now), shortValue(d.was), strings.Join(owners, ", ")))
	}
	if len(lines) == 0 {
		return nil
	}
	return diag.Diagnostics{takeoverDiagnostic(lines, kindrules.BoolExtra(priorAttrs, kindrules.AttrForceConflicts, kindrules.DefaultForceConflicts))}
}

// takeoverDiagnostic words the warning for the listed attributes.
func takeoverDiagnostic(lines []string, force bool) diag.Diagnostic {
	var b strings.Builder
	b.WriteString("Since the last apply, other field managers changed attributes this resource manages:\n")
	writeBounded(&b, lines)
	if force {
		b.WriteString("The plan sets them back to the configuration and the apply takes ownership of them (force_conflicts = true). " +
			"Set force_conflicts = false to fail instead.")
		return diag.NewWarningDiagnostic("Fields changed outside Terraform will be taken back", b.String())
	}
	b.WriteString("The plan sets them back to the configuration, but the apply fails with a conflict (force_conflicts = false). " +
		"Set force_conflicts = true to take ownership, or change them through that manager.")
	return diag.NewWarningDiagnostic("Fields changed outside Terraform are owned by another field manager", b.String())
}

// writeBounded writes the first maxTakeoverLines of lines, one a line, and how many more there are.
func writeBounded(b *strings.Builder, lines []string) {
	shown := lines
	if len(shown) > maxTakeoverLines {
		shown = shown[:maxTakeoverLines]
	}
	for _, l := range shown {
		b.WriteString(l + "\n")
	}
	if more := len(lines) - len(shown); more > 0 {
		fmt.Fprintf(b, "  ... and %d more\n", more)
	}
}

// driftsOf appends the attributes under node n that the state records (was is not null) and whose
// value changed. Computed attributes are the server's; a list whose length changed is one drift.
func driftsOf(n *k8sschema.Node, was, now tftypes.Value, p string, steps []any, out *[]drift) {
	if n.Mode == k8sschema.Computed || was.IsNull() || !was.IsKnown() || !now.IsKnown() || was.Equal(now) {
		return // an attribute another writer added is the plan's to report (foreignRemovalWarning)
	}
	record := func() { *out = append(*out, drift{path: p, steps: append([]any(nil), steps...), was: was, now: now}) }
	if now.IsNull() {
		record()
		return
	}
	switch n.Kind {
	case k8sschema.KindObject:
		var wa, na map[string]tftypes.Value
		_ = was.As(&wa)
		_ = now.As(&na)
		for _, f := range n.Fields {
			driftsOf(f, wa[f.TFName], na[f.TFName], p+"."+f.JSONName, append(steps, f.JSONName), out)
		}
	case k8sschema.KindList:
		var wl, nl []tftypes.Value
		_ = was.As(&wl)
		_ = now.As(&nl)
		if len(wl) != len(nl) {
			record()
			return
		}
		for i := range wl {
			driftsOf(n.Elem, wl[i], nl[i], p+"["+strconv.Itoa(i)+"]", append(steps, i), out)
		}
	case k8sschema.KindMap:
		var wm, nm map[string]tftypes.Value
		_ = was.As(&wm)
		_ = now.As(&nm)
		keys := make([]string, 0, len(wm))
		for k := range wm {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			wv := wm[k]
			nv, ok := nm[k]
			if !ok {
				nv = k8sschema.NullValue(n.Elem)
			}
			driftsOf(n.Elem, wv, nv, p+"["+k+"]", append(steps, k), out)
		}
	default:
		record()
	}
}

// hasPath reports whether the JSON document doc has a value at steps.
func hasPath(doc any, steps []any) bool {
	for _, s := range steps {
		switch s := s.(type) {
		case string:
			m, ok := doc.(map[string]any)
			if !ok {
				return false
			}
			if doc, ok = m[s]; !ok {
				return false
			}
		case int:
			l, ok := doc.([]any)
			if !ok || s >= len(l) {
				return false
			}
			doc = l[s]
		}
	}
	return true
}

// foreignOwners maps the field paths of u that managers other than the provider's own (as
// Kubernetes field paths) to those managers. A path's value tells whether the manager owns it
// whole (a leaf, an atomic list or map) rather than only its existence (a list element).
func (r *Resource) foreignOwners(u *unstructured.Unstructured) map[string][]ownership {
	node := r.kind.Node()
	out := map[string][]ownership{}
	for _, e := range u.GetManagedFields() {
		if e.Manager == r.fieldManager() || e.FieldsV1 == nil {
			continue
		}
		var set fieldpath.Set
		if err := set.FromJSON(e.FieldsV1.GetRawReader()); err != nil {
			continue
		}
		owner := fieldOwner{manager: e.Manager, operation: string(e.Operation), subresource: e.Subresource}
		ownedPaths(&set, node, u.Object, "", func(p string, whole bool) {
			out[p] = append(out[p], ownership{owner, whole})
		})
	}
	return out
}

type ownership struct {
	owner fieldOwner
	whole bool
}

// ownedPaths calls visit with the Kubernetes field path of every member of set s, a managed
// fields set under node n whose object is obj. Paths without an attribute are skipped.
func ownedPaths(s *fieldpath.Set, n *k8sschema.Node, obj any, p string, visit func(p string, whole bool)) {
	s.Members.Iterate(func(pe fieldpath.PathElement) {
		if _, _, cp, ok := stepInto(n, obj, p, pe); ok {
			_, hasChildren := s.Children.Get(pe)
			visit(cp, !hasChildren)
		}
	})
	s.Children.Iterate(func(pe fieldpath.PathElement) {
		child, _ := s.Children.Get(pe)
		if cn, cobj, cp, ok := stepInto(n, obj, p, pe); ok {
			ownedPaths(child, cn, cobj, cp, visit)
		}
	})
}

// stepInto follows one path element from node n and its value obj: a field or map key by name, a
// list element by key, value or index (found in obj, so the path names it by index).
func stepInto(n *k8sschema.Node, obj any, p string, pe fieldpath.PathElement) (*k8sschema.Node, any, string, bool) {
	cn, cobj, cp, _, ok := stepIntoWithStep(n, obj, p, pe)
	return cn, cobj, cp, ok
}

// stepIntoWithStep is stepInto that also returns the step as a JSON key (string) or list index
// (int).
func stepIntoWithStep(n *k8sschema.Node, obj any, p string, pe fieldpath.PathElement) (*k8sschema.Node, any, string, any, bool) {
	if pe.FieldName != nil {
		name := *pe.FieldName
		m, _ := obj.(map[string]any)
		switch n.Kind {
		case k8sschema.KindObject:
			f := n.FieldJSON(name)
			if f == nil {
				return nil, nil, "", nil, false
			}
			cp := name
			if p != "" {
				cp = p + "." + name
			}
			return f, m[name], cp, name, true
		case k8sschema.KindMap:
			return n.Elem, m[name], p + "[" + name + "]", name, true
		}
		return nil, nil, "", nil, false
	}
	l, _ := obj.([]any)
	if n.Kind != k8sschema.KindList {
		return nil, nil, "", nil, false
	}
	i := elementIndex(l, pe)
	if i < 0 || i >= len(l) {
		return nil, nil, "", nil, false
	}
	return n.Elem, l[i], p + "[" + strconv.Itoa(i) + "]", i, true
}

func indexOf(l []any, match func(any) bool) int {
	for i, e := range l {
		if match(e) {
			return i
		}
	}
	return -1
}

// ownersOf names the managers that own the field at p: the field itself, or an ancestor whole
// (an atomic list or map).
func ownersOf(p string, owned map[string][]ownership) []string {
	seen := map[string]bool{}
	var out []string
	add := func(os []ownership, wholeOnly bool) {
		for _, o := range os {
			if s := o.owner.String(); (o.whole || !wholeOnly) && !seen[s] {
				seen[s] = true
				out = append(out, s)
			}
		}
	}
	add(owned[p], false)
	for i := len(p) - 1; i > 0; i-- {
		if p[i] == '.' || p[i] == '[' {
			add(owned[p[:i]], true)
		}
	}
	sort.Strings(out)
	return out
}

// shortValue renders a value for the warning, cut to maxValueLen characters.
func shortValue(v tftypes.Value) string {
	s := renderValue(v)
	if len(s) > maxValueLen {
		s = s[:maxValueLen-3] + "..."
	}
	return s
}

func renderValue(v tftypes.Value) string {
	switch {
	case !v.IsKnown():
		return "(known after apply)"
	case v.IsNull():
		return "null"
	}
	switch t := v.Type().(type) {
	case tftypes.List, tftypes.Set, tftypes.Tuple:
		var l []tftypes.Value
		_ = v.As(&l)
		parts := make([]string, len(l))
		for i, e := range l {
			parts[i] = renderValue(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case tftypes.Map, tftypes.Object:
		var m map[string]tftypes.Value
		_ = v.As(&m)
		keys := make([]string, 0, len(m))
		for k, e := range m {
			if !e.IsNull() {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = k + " = " + renderValue(m[k])
		}
		return "{" + strings.Join(parts, ", ") + "}"
	default:
		switch {
		case t.Is(tftypes.String):
			var s string
			_ = v.As(&s)
			return strconv.Quote(s)
		case t.Is(tftypes.Number):
			var f big.Float
			_ = v.As(&f)
			return f.Text('f', -1)
		case t.Is(tftypes.Bool):
			var b bool
			_ = v.As(&b)
			return strconv.FormatBool(b)
		}
	}
	return v.String()
}
