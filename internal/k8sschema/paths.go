package k8sschema

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// segment is one step of a field path: a JSON field name, or a bracketed index or key.
type segment struct {
	name    string
	bracket bool
}

// splitPath parses the string form of a field.Path ("spec.containers[0].image",
// "metadata.annotations[example.com/key]"). Keys may contain dots; they never contain ']'.
func splitPath(s string) []segment {
	var out []segment
	for i := 0; i < len(s); {
		switch s[i] {
		case '.':
			i++
		case '[':
			end := strings.IndexByte(s[i:], ']')
			if end < 0 {
				out = append(out, segment{name: s[i+1:], bracket: true})
				return out
			}
			out = append(out, segment{name: s[i+1 : i+end], bracket: true})
			i += end + 1
		default:
			end := strings.IndexAny(s[i:], ".[")
			if end < 0 {
				end = len(s) - i
			}
			out = append(out, segment{name: s[i : i+end]})
			i += end
		}
	}
	return out
}

// AttributePath maps a JSON field path below root to the Terraform attribute path. When part of
// the path has no attribute (a rule that names a virtual field), the deepest attribute found is
// returned with ok=false.
func AttributePath(root *Node, fieldPath string) (path.Path, bool) {
	p := path.Empty()
	n := root
	for _, seg := range splitPath(fieldPath) {
		switch {
		case seg.bracket && n.Kind == KindList:
			i, err := strconv.Atoi(seg.name)
			if err != nil {
				return p, false
			}
			p = p.AtListIndex(i)
			n = n.Elem
		case seg.bracket && n.Kind == KindMap:
			p = p.AtMapKey(seg.name)
			n = n.Elem
		case !seg.bracket && n.Kind == KindObject:
			f := n.FieldJSON(seg.name)
			if f == nil {
				// The API server spells some paths with a capital letter (LWS "SubGroupPolicy").
				f = n.FieldJSON(strings.ToLower(seg.name[:1]) + seg.name[1:])
			}
			if f == nil {
				return p, false
			}
			p = p.AtName(f.TFName)
			n = f
		default:
			return p, false
		}
	}
	return p, true
}

// Diagnostics turns validation errors into attribute-path diagnostics. Errors under a value that
// is not known yet are dropped: the check runs again at apply when the value is known.
func Diagnostics(root *Node, errs field.ErrorList, unknown []*field.Path) diag.Diagnostics {
	var diags diag.Diagnostics
	unknownStr := make([]string, len(unknown))
	for i, u := range unknown {
		unknownStr[i] = u.String()
	}
	for _, e := range errs {
		if dependsOnUnknown(e.Field, unknownStr) {
			continue
		}
		diags.Append(Diagnostic(root, e))
	}
	return diags
}

// Diagnostic turns one validation error into an attribute diagnostic.
func Diagnostic(root *Node, e *field.Error) diag.Diagnostic {
	p, _ := AttributePath(root, e.Field)
	e = withShortValue(e)
	summary := errorSummary(e.Type)
	// Terraform cannot point inside an object expression, so the detail names the attribute.
	detail := fmt.Sprintf("%s: %s\n(Kubernetes field %s)", p, e.ErrorBody(), e.Field)
	if e.Type == field.ErrorTypeInternal {
		return diag.NewAttributeErrorDiagnostic(p, "Internal error", detail)
	}
	return diag.NewAttributeErrorDiagnostic(p, summary, detail)
}

// maxShownValue bounds how much of a bad value a diagnostic repeats: a megabyte-long name would
// otherwise be echoed in full in every error about it.
const maxShownValue = 200

// withShortValue returns e with a long string value cut to its start and its length.
func withShortValue(e *field.Error) *field.Error {
	s, ok := e.BadValue.(string)
	if !ok || len(s) <= maxShownValue {
		return e
	}
	short := *e
	short.BadValue = fmt.Sprintf("%s... (%d characters)", s[:maxShownValue], len(s))
	return &short
}

func errorSummary(t field.ErrorType) string {
	switch t {
	case field.ErrorTypeRequired:
		return "Missing required value"
	case field.ErrorTypeNotSupported:
		return "Unsupported value"
	case field.ErrorTypeDuplicate:
		return "Duplicate value"
	case field.ErrorTypeForbidden:
		return "Forbidden value"
	case field.ErrorTypeTooLong:
		return "Value too long"
	case field.ErrorTypeTooMany:
		return "Too many values"
	case field.ErrorTypeNotFound:
		return "Reference not found"
	default:
		return "Invalid value"
	}
}

// dependsOnUnknown reports whether an error at errPath may be caused by a value not known yet:
// the unknown value is at or above the error, or is a sibling of one of the error's ancestors'
// children (cross-field rules compare neighbours).
func dependsOnUnknown(errPath string, unknown []string) bool {
	for _, u := range unknown {
		if hasPathPrefix(errPath, u) {
			return true
		}
		if parent := parentPath(u); parent == "" || hasPathPrefix(errPath, parent) {
			return true
		}
	}
	return false
}

func hasPathPrefix(p, prefix string) bool {
	if !strings.HasPrefix(p, prefix) {
		return false
	}
	return len(p) == len(prefix) || p[len(prefix)] == '.' || p[len(prefix)] == '['
}

func parentPath(p string) string {
	if strings.HasSuffix(p, "]") {
		if i := strings.LastIndexByte(p, '['); i >= 0 {
			return p[:i]
		}
	}
	if i := strings.LastIndexAny(p, ".["); i >= 0 {
		return p[:i]
	}
	return ""
}

// ValueAt returns the value at a JSON field path ("spec.limited.nominalConcurrencyShares") of
// a value of root's type, and whether the path exists and is known all the way down.
func ValueAt(root *Node, v tftypes.Value, fieldPath string) (tftypes.Value, bool) {
	n := root
	for _, seg := range splitPath(fieldPath) {
		if !v.IsKnown() || v.IsNull() {
			return v, false
		}
		switch {
		case seg.bracket && n.Kind == KindList:
			i, err := strconv.Atoi(seg.name)
			var l []tftypes.Value
			if err != nil || v.As(&l) != nil || i < 0 || i >= len(l) {
				return v, false
			}
			v, n = l[i], n.Elem
		case seg.bracket && n.Kind == KindMap:
			var m map[string]tftypes.Value
			_ = v.As(&m)
			e, ok := m[seg.name]
			if !ok {
				return v, false
			}
			v, n = e, n.Elem
		case !seg.bracket && n.Kind == KindObject:
			f := n.FieldJSON(seg.name)
			var m map[string]tftypes.Value
			if f == nil || v.As(&m) != nil {
				return v, false
			}
			v, n = m[f.TFName], f
		default:
			return v, false
		}
	}
	return v, v.IsKnown()
}

// SetAttrPath returns v with the attribute at the given Terraform attribute names replaced by
// leaf; v as it is when a value on the way is null, unknown or lacks the attribute.
func SetAttrPath(v, leaf tftypes.Value, names ...string) tftypes.Value {
	if len(names) == 0 {
		return leaf
	}
	if !v.IsKnown() || v.IsNull() {
		return v
	}
	var attrs map[string]tftypes.Value
	if v.As(&attrs) != nil {
		return v
	}
	child, ok := attrs[names[0]]
	if !ok {
		return v
	}
	out := make(map[string]tftypes.Value, len(attrs))
	for k, x := range attrs {
		out[k] = x
	}
	out[names[0]] = SetAttrPath(child, leaf, names[1:]...)
	return tftypes.NewValue(v.Type(), out)
}
