package kube

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-log/tflog"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/k8sschema"
)

// undeclaredFieldRE finds the fields a server-side apply names as unknown to the object's
// schema (a CRD older than the field): the message of structured-merge-diff's typed conversion,
// e.g. ".spec.groupIdentity: field not declared in schema".
var undeclaredFieldRE = regexp.MustCompile(`(\.[^\s:]+): field not declared in schema`)

// maxUndeclaredProbes bounds the dry runs that look for further undeclared fields.
const maxUndeclaredProbes = 20

// undeclaredField is one field the installed CRD does not declare, as the server named it.
type undeclaredField struct {
	smdPath   string // structured-merge-diff's path, with list selectors
	fieldPath string // the Kubernetes field path in the sent body
	said      string // the server's message that named it
	probe     bool   // named by a dry run of the body without the fields found before
}

// undeclaredFieldDiags turns a server-side apply rejected for fields the installed CRD does not
// declare into one error per field, on the attribute, saying which API adds it. It returns nothing
// for any other error. body is the apply document, to resolve list-element selectors.
//
// The server names only some of the undeclared fields: structured-merge-diff's validation stops
// at the first undeclared field of each object it walks (sigs.k8s.io/structured-merge-diff/v6
// v6.4.2 typed/validate.go, validatingObjectWalker.visitMapItems returns false). So the apply is
// repeated as a dry run (metav1.DryRunAll: nothing is stored) without the fields already named,
// until no undeclared field remains (at most maxUndeclaredProbes times), and every field is
// reported at once instead of one per failed apply. ri is nil to skip the dry runs.
func (r *Resource) undeclaredFieldDiags(ctx context.Context, ri dynamic.ResourceInterface, name string, opts metav1.PatchOptions,
	summary string, err error, body []byte) diag.Diagnostics {
	var doc any
	_ = json.Unmarshal(body, &doc)
	fields := undeclaredFields(err, doc, false, nil)
	if len(fields) == 0 {
		return nil
	}
	if ri != nil {
		fields = r.probeUndeclared(ctx, ri, name, opts, body, doc, fields)
	}
	return r.undeclaredDiags(summary, fields)
}

// undeclaredFields lists the undeclared fields err names that known does not hold yet.
func undeclaredFields(err error, doc any, probe bool, known []undeclaredField) []undeclaredField {
	if err == nil {
		return known
	}
	seen := map[string]bool{}
	for _, f := range known {
		seen[f.fieldPath] = true
	}
	for _, m := range undeclaredFieldRE.FindAllStringSubmatch(err.Error(), -1) {
		fieldPath := fieldPathOf(m[1], doc)
		if seen[fieldPath] {
			continue
		}
		seen[fieldPath] = true
		known = append(known, undeclaredField{smdPath: m[1], fieldPath: fieldPath, said: err.Error(), probe: probe})
	}
	return known
}

// probeUndeclared dry-runs the apply of body without the fields found so far, adding the
// undeclared fields each answer names, until an answer names none that is new.
func (r *Resource) probeUndeclared(ctx context.Context, ri dynamic.ResourceInterface, name string, opts metav1.PatchOptions,
	body []byte, doc any, fields []undeclaredField) []undeclaredField {
	opts.DryRun = []string{metav1.DryRunAll}
	for round := 0; round < maxUndeclaredProbes && ctx.Err() == nil; round++ {
		var probe any
		if json.Unmarshal(body, &probe) != nil {
			return fields
		}
		for _, f := range fields {
			deleteSMDPath(probe, f.smdPath)
		}
		probeBody, err := json.Marshal(probe)
		if err != nil {
			return fields
		}
		_, err = ri.Patch(ctx, name, types.ApplyPatchType, probeBody, opts)
		found := undeclaredFields(err, doc, true, fields)
		tflog.Debug(ctx, "Dry-run apply without the undeclared fields found so far", map[string]any{
			"kind": r.kind.GVK.Kind, "round": round + 1, "known": len(fields), "new": len(found) - len(fields),
		})
		if len(found) == len(fields) {
			return fields
		}
		fields = found
	}
	return fields
}

// undeclaredDiags formats one attribute error per undeclared field.
func (r *Resource) undeclaredDiags(summary string, fields []undeclaredField) diag.Diagnostics {
	var diags diag.Diagnostics
	node := r.kind.Node()
	for _, f := range fields {
		hint := ""
		if r.kind.UndeclaredField != nil {
			hint = r.kind.UndeclaredField(withoutIndexes(f.fieldPath))
		}
		if hint == "" {
			hint = "The CRD was built from an older version of the API than this field needs: upgrade the CRD (and its controller) or remove the attribute."
		}
		said := "The server said: " + f.said
		if f.probe {
			said = "The server said, to a dry run of the same apply without the undeclared fields it had named before: " + f.said
		}
		ap, ok := k8sschema.AttributePath(node, f.fieldPath)
		detail := fmt.Sprintf("The %s CRD installed in the cluster does not declare %s.\n%s\n\n%s",
			r.kind.GVK.Kind, f.fieldPath, hint, said)
		if ok || len(ap.Steps()) > 0 { // an unresolved list selector: the list's attribute
			diags.AddAttributeError(ap, summary, fmt.Sprintf("%s: %s", ap, detail))
		} else {
			diags.AddError(summary, detail)
		}
	}
	return diags
}

// deleteSMDPath removes the field at a structured-merge-diff path from doc, resolving list
// selectors as fieldPathOf does; a path that does not resolve leaves doc as it is.
func deleteSMDPath(doc any, smdPath string) {
	segs := splitSMDPath(smdPath)
	cur := doc
	for i, seg := range segs {
		last := i == len(segs)-1
		if strings.HasPrefix(seg, "[") {
			l, _ := cur.([]any)
			cur = nil
			for _, e := range l {
				if matchesSelector(e, seg) {
					cur = e
					break
				}
			}
			if cur == nil || last {
				return
			}
			continue
		}
		m, ok := cur.(map[string]any)
		if !ok {
			return
		}
		if last {
			delete(m, seg)
			return
		}
		cur = m[seg]
	}
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
