package kube

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/k8sschema"
)

// undeclaredFieldRE finds the fields a server-side apply names as unknown to the object's
// schema (a CRD older than the field): the message of structured-merge-diff's typed conversion,
// e.g. ".spec.groupIdentity: field not declared in schema".
var undeclaredFieldRE = regexp.MustCompile(`(\.[^\s:]+): field not declared in schema`)

// undeclaredFieldDiags turns a server-side apply rejected for fields the installed CRD does not
// declare into one error per field, on the attribute, saying which API adds it. It returns nothing
// for any other error. body is the apply document, to resolve list-element selectors.
func (r *Resource) undeclaredFieldDiags(summary string, err error, body []byte) diag.Diagnostics {
	var diags diag.Diagnostics
	matches := undeclaredFieldRE.FindAllStringSubmatch(err.Error(), -1)
	if len(matches) == 0 {
		return nil
	}
	var doc any
	_ = json.Unmarshal(body, &doc)
	node := r.kind.Node()
	seen := map[string]bool{}
	for _, m := range matches {
		fieldPath := fieldPathOf(m[1], doc)
		if seen[fieldPath] {
			continue
		}
		seen[fieldPath] = true
		hint := ""
		if r.kind.UndeclaredField != nil {
			hint = r.kind.UndeclaredField(withoutIndexes(fieldPath))
		}
		if hint == "" {
			hint = "The CRD was built from an older version of the API than this field needs: upgrade the CRD (and its controller) or remove the attribute."
		}
		ap, ok := k8sschema.AttributePath(node, fieldPath)
		detail := fmt.Sprintf("The %s CRD installed in the cluster does not declare %s.\n%s\n\nThe server said: %s",
			r.kind.GVK.Kind, fieldPath, hint, err.Error())
		if ok || len(ap.Steps()) > 0 { // an unresolved list selector: the list's attribute
			diags.AddAttributeError(ap, summary, fmt.Sprintf("%s: %s", ap, detail))
		} else {
			diags.AddError(summary, detail)
		}
	}
	return diags
}

// fieldPathOf turns a structured-merge-diff path (".spec.containers[name=\"c\"].foo") into a
// Kubernetes field path ("spec.containers[0].foo"), resolving list-element selectors against the
// sent document doc.
func fieldPathOf(smdPath string, doc any) string {
	var b strings.Builder
	cur := doc
	for _, seg := range splitSMDPath(smdPath) {
		if strings.HasPrefix(seg, "[") {
			idx := -1
			l, _ := cur.([]any)
			for i, e := range l {
				if matchesSelector(e, seg) {
					idx = i
					break
				}
			}
			if idx < 0 {
				b.WriteString(seg)
				cur = nil
				continue
			}
			fmt.Fprintf(&b, "[%d]", idx)
			cur = l[idx]
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(seg)
		m, _ := cur.(map[string]any)
		cur = m[seg]
	}
	return b.String()
}

// splitSMDPath splits ".a.b[k=\"v\"].c" into "a", "b", "[k=\"v\"]", "c".
func splitSMDPath(p string) []string {
	var out []string
	for i := 0; i < len(p); {
		switch p[i] {
		case '.':
			i++
		case '[':
			end := strings.IndexByte(p[i:], ']')
			for end > 0 && strings.Count(p[i:i+end], `"`)%2 == 1 { // a ']' inside a quoted value
				next := strings.IndexByte(p[i+end+1:], ']')
				if next < 0 {
					end = -1
					break
				}
				end += next + 1
			}
			if end < 0 {
				return append(out, p[i:])
			}
			out = append(out, p[i:i+end+1])
			i += end + 1
		default:
			end := strings.IndexAny(p[i:], ".[")
			if end < 0 {
				return append(out, p[i:])
			}
			out = append(out, p[i:i+end])
			i += end
		}
	}
	return out
}

// matchesSelector reports whether a list element matches an associative-list selector such as
// [name="c"] or [containerPort=8080,protocol="TCP"].
func matchesSelector(elem any, sel string) bool {
	m, ok := elem.(map[string]any)
	if !ok {
		return false
	}
	for _, kv := range strings.Split(strings.Trim(sel, "[]"), ",") {
		k, v, found := strings.Cut(kv, "=")
		if !found {
			return false
		}
		if uq, err := strconv.Unquote(v); err == nil {
			v = uq
		}
		sent, present := m[k]
		if !present {
			continue // a key the configuration leaves to its default (a port's protocol "TCP")
		}
		if fmt.Sprint(sent) != v {
			return false
		}
	}
	return true
}

var listIndexRE = regexp.MustCompile(`\[[^\]]*\]`)

// withoutIndexes drops list indexes: "spec.containers[0].foo" -> "spec.containers.foo".
func withoutIndexes(p string) string {
	return listIndexRE.ReplaceAllString(p, "")
}
