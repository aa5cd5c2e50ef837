package k8sschema

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// JSONValue is v as encoding/json renders it, decoded into maps and slices: quantities in
// canonical form, omitted fields absent, as the controller's revision sees them.
func JSONValue(v any) any {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	var out any
	_ = json.Unmarshal(raw, &out)
	return out
}

// ChangedFields lists the Kubernetes field paths under base where the JSON values a and b
// differ. n is the schema node of base (nil when unknown): it tells map keys from fields. A list
// whose length changes is reported as a whole; absent, null and empty values are the same.
func ChangedFields(n *Node, base *field.Path, a, b any) []*field.Path {
	if isEmptyJSON(a) && isEmptyJSON(b) {
		return nil
	}
	if (a == nil) != (b == nil) && (n == nil || n.Kind != KindMap) {
		return []*field.Path{base} // added or removed as a whole
	}
	switch av := a.(type) {
	case map[string]any:
		bv, ok := b.(map[string]any)
		if !ok && b != nil {
			return []*field.Path{base}
		}
		keys := map[string]bool{}
		for k := range av {
			keys[k] = true
		}
		for k := range bv {
			keys[k] = true
		}
		sorted := make([]string, 0, len(keys))
		for k := range keys {
			sorted = append(sorted, k)
		}
		sort.Strings(sorted)
		var out []*field.Path
		for _, k := range sorted {
			var child *Node
			p := base.Child(k)
			if n != nil && n.Kind == KindMap {
				child, p = n.Elem, base.Key(k)
			} else if n != nil {
				child = n.FieldJSON(k)
			}
			out = append(out, ChangedFields(child, p, av[k], bv[k])...)
		}
		return out
	case []any:
		bv, ok := b.([]any)
		if !ok || len(av) != len(bv) {
			return []*field.Path{base}
		}
		var elem *Node
		if n != nil {
			elem = n.Elem
		}
		var out []*field.Path
		for i := range av {
			out = append(out, ChangedFields(elem, base.Index(i), av[i], bv[i])...)
		}
		return out
	case nil:
		return ChangedFields(n, base, b, a) // a map's first keys
	}
	if !reflect.DeepEqual(a, b) {
		return []*field.Path{base}
	}
	return nil
}

func isEmptyJSON(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case map[string]any:
		return len(x) == 0
	case []any:
		return len(x) == 0
	}
	return false
}

// NodeAt is the schema node at a dotted JSON path of fields ("spec.leaderWorkerTemplate"), nil
// when there is none.
func NodeAt(root *Node, dotted string) *Node {
	n := root
	for _, name := range strings.Split(dotted, ".") {
		if n == nil {
			return nil
		}
		n = n.FieldJSON(name)
	}
	return n
}

// maxListed bounds how many changed fields a message names.
const maxListed = 8

// FieldList renders field paths as attribute paths, at most maxListed of them.
func FieldList(root *Node, paths []*field.Path) string {
	var names []string
	for i, p := range paths {
		if i == maxListed {
			names = append(names, fmt.Sprintf("and %d more", len(paths)-maxListed))
			break
		}
		ap, _ := AttributePath(root, p.String())
		names = append(names, ap.String())
	}
	return strings.Join(names, ", ")
}

// DependsOnUnknown reports whether one of the unknown paths is at, above or under one of fields.
func DependsOnUnknown(unknown []*field.Path, fields []string) bool {
	for _, u := range unknown {
		us := u.String()
		for _, f := range fields {
			if us == f || strings.HasPrefix(us, f+".") || strings.HasPrefix(us, f+"[") || strings.HasPrefix(f, us+".") {
				return true
			}
		}
	}
	return false
}
