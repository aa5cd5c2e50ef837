package kube

import (
	"encoding/json"
	"fmt"
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

// The plan removes an attribute that the state holds and the configuration does not declare.
// When another field manager owns it (kubectl patch added it, or the kubectl that created an
// imported object still co-owns it), the apply takes it over before removing it (handover.go),
// and the plan says so, naming the manager. The plan makes no API call: the refresh records,
// in the resource's private state, which attributes other managers own (from the
// metadata.managedFields of the object it reads anyway), and the plan reads that record, so a
// plan with -refresh=false uses the last one.

// privateForeignOwned is the private-state key of that record.
const privateForeignOwned = "foreign_owned"

// maxForeignOwned bounds the record (an object created by kubectl apply is owned by kubectl
// field by field).
const maxForeignOwned = 2000

// ownedAttr is an attribute another manager owns: its JSON steps (keys and list indexes) and
// its owners.
type ownedAttr struct {
	Steps  []any    `json:"p"`
	Owners []string `json:"o"`
}

// foreignOwnedRecord lists the attributes of u, inside the schema and not server-set, that
// field managers other than the provider's own (subresources aside: controllers writing
// status); nil when none.
func (r *Resource) foreignOwnedRecord(u *unstructured.Unstructured) []byte {
	manager := r.fieldManager()
	node := r.kind.Node()
	byPath := map[string]*ownedAttr{}
	var order []string
	for _, e := range u.GetManagedFields() {
		if e.Manager == manager || e.Subresource != "" || e.FieldsV1 == nil {
			continue
		}
		var set fieldpath.Set
		if set.FromJSON(e.FieldsV1.GetRawReader()) != nil {
			continue
		}
		owner := fieldOwner{manager: e.Manager, operation: string(e.Operation)}.String()
		set.Iterate(func(p fieldpath.Path) {
			fp, steps, ok := declaredPath(node, u.Object, p)
			if !ok {
				return
			}
			a := byPath[fp]
			if a == nil {
				if len(order) >= maxForeignOwned {
					return
				}
				a = &ownedAttr{Steps: steps}
				byPath[fp] = a
				order = append(order, fp)
			}
			for _, o := range a.Owners {
				if o == owner {
					return
				}
			}
			a.Owners = append(a.Owners, owner)
		})
	}
	if len(order) == 0 {
		return nil
	}
	out := make([]*ownedAttr, len(order))
	for i, fp := range order {
		out[i] = byPath[fp]
	}
	b, err := json.Marshal(out)
	if err != nil {
		return nil
	}
	return b
}

// ForeignOwned is the record of private (the framework's encoding), for package protocol.
func ForeignOwned(private []byte) []byte { return privateValue(private, privateForeignOwned) }

// WithForeignOwned returns private with the record set, or removed when record is nil.
func WithForeignOwned(private, record []byte) []byte {
	if len(record) == 0 && len(private) == 0 {
		return private
	}
	return editPrivate(private, func(m map[string][]byte) {
		if len(record) > 0 {
			m[privateForeignOwned] = record
		} else {
			delete(m, privateForeignOwned)
		}
	})
}

// foreignRemovalWarning warns when planned removes attributes of prior that the record says
// other managers own. Each removal is named once, at the outermost attribute removed.
func (r *Resource) foreignRemovalWarning(record []byte, planned, prior tftypes.Value) diag.Diagnostics {
	if len(record) == 0 || prior.IsNull() || planned.IsNull() || !planned.IsKnown() {
		return nil
	}
	var attrs []ownedAttr
	if json.Unmarshal(record, &attrs) != nil {
		return nil
	}
	node := r.kind.Node()
	owners := map[string]map[string]bool{}
	for _, a := range attrs {
		if fp, ok := removedAlong(node, prior, planned, a.Steps); ok {
			if owners[fp] == nil {
				owners[fp] = map[string]bool{}
			}
			for _, o := range a.Owners {
				owners[fp][o] = true
			}
		}
	}
	if len(owners) == 0 {
		return nil
	}
	paths := make([]string, 0, len(owners))
	for fp := range owners {
		paths = append(paths, fp)
	}
	sort.Strings(paths)
	force := kindrules.BoolExtra(ObjectAttrs(planned), kindrules.AttrForceConflicts, kindrules.DefaultForceConflicts)
	var lines []string
	for _, fp := range paths {
		var os []string
		for o := range owners[fp] {
			os = append(os, o)
		}
		sort.Strings(os)
		ap, _ := k8sschema.AttributePath(node, fp)
		line := fmt.Sprintf("  %s, owned by %s", ap, strings.Join(os, ", "))
		if noun, key, ok := metadataKey(fp); ok {
			// The key is in the prior state: the configuration declared it (or the import
			// recorded it). Another writer setting the same key does not keep it.
			outcome := "it will be removed"
			if !force {
				outcome = "it stays, and the apply fails"
			}
			line = fmt.Sprintf("  %s: %s %s is also set by %s; %s", ap, noun, key, strings.Join(os, ", "), outcome)
		}
		lines = append(lines, line)
	}
	var b strings.Builder
	b.WriteString("The plan removes attributes that the configuration does not declare and that other field managers own:\n")
	writeBounded(&b, lines)
	if force {
		b.WriteString("Server-side apply alone would leave them with their managers; the apply takes them over and removes them " +
			"(force_conflicts = true). Declare them in the configuration to keep them.")
		return diag.Diagnostics{diag.NewWarningDiagnostic("Attributes owned by other field managers will be removed", b.String())}
	}
	b.WriteString("With force_conflicts = false the apply leaves them to their managers and fails, naming them. Set " +
		"force_conflicts = true to take them over and remove them, declare them in the configuration, or remove them with " +
		"their managers.")
	return diag.Diagnostics{diag.NewWarningDiagnostic("Attributes owned by other field managers cannot be removed", b.String())}
}

// metadataKey reports whether the Kubernetes field path fp is a key of labels or annotations
// (the object's or a pod template's): the noun and the key, for messages.
func metadataKey(fp string) (noun, key string, ok bool) {
	open := strings.LastIndexByte(fp, '[')
	if open < 0 || !strings.HasSuffix(fp, "]") {
		return "", "", false
	}
	parent, key := fp[:open], fp[open+1:len(fp)-1]
	switch {
	case parent == "metadata.labels" || strings.HasSuffix(parent, ".metadata.labels"):
		return "label", key, true
	case parent == "metadata.annotations" || strings.HasSuffix(parent, ".metadata.annotations"):
		return "annotation", key, true
	}
	return "", "", false
}

// removedAlong follows steps through prior and planned (root values of the resource) and
// reports the Kubernetes field path of the outermost attribute along them that prior holds
// and planned does not.
func removedAlong(node *k8sschema.Node, prior, planned tftypes.Value, steps []any) (string, bool) {
	n := node
	was, now := prior, planned
	fp := ""
	for i, s := range steps {
		if was.IsNull() || !was.IsKnown() || !now.IsKnown() {
			return "", false
		}
		switch n.Kind {
		case k8sschema.KindObject:
			name, _ := s.(string)
			f := n.FieldJSON(name)
			if f == nil {
				return "", false
			}
			was, now = objectAttr(was, f.TFName), objectAttr(now, f.TFName)
			if fp != "" {
				fp += "."
			}
			fp += name
			n = f
		case k8sschema.KindList:
			i, ok := listIndex(s)
			if !ok {
				return "", false
			}
			was, now = listElem(was, i), listElem(now, i)
			fp += "[" + strconv.Itoa(i) + "]"
			n = n.Elem
		case k8sschema.KindMap:
			key, _ := s.(string)
			was, now = mapElem(was, key), mapElem(now, key)
			fp += "[" + key + "]"
			n = n.Elem
		default:
			return "", false
		}
		if n.Mode == k8sschema.Computed {
			return "", false
		}
		// Labels and annotations dropped from the configuration lose only the keys it declared:
		// name the key, not the map (keys others added stay).
		keysOnly := n.Kind == k8sschema.KindMap && (n.KeysFromPrior || len(n.ForeignKeys) > 0) && i < len(steps)-1
		if !was.IsNull() && was.IsKnown() && now.IsKnown() && now.IsNull() && !keysOnly {
			return fp, true
		}
	}
	return "", false
}

// listIndex reads a list index step (a JSON number after a round trip through JSON).
func listIndex(s any) (int, bool) {
	switch i := s.(type) {
	case int:
		return i, true
	case float64:
		return int(i), true
	}
	return 0, false
}

// objectAttr, listElem and mapElem read one level of a value; an absent element is a null of
// no particular type (only its nullness is read).
func objectAttr(v tftypes.Value, name string) tftypes.Value {
	var m map[string]tftypes.Value
	if v.IsNull() || v.As(&m) != nil {
		return tftypes.NewValue(tftypes.DynamicPseudoType, nil)
	}
	if x, ok := m[name]; ok {
		return x
	}
	return tftypes.NewValue(tftypes.DynamicPseudoType, nil)
}

func listElem(v tftypes.Value, i int) tftypes.Value {
	var l []tftypes.Value
	if v.IsNull() || v.As(&l) != nil || i < 0 || i >= len(l) {
		return tftypes.NewValue(tftypes.DynamicPseudoType, nil)
	}
	return l[i]
}

func mapElem(v tftypes.Value, key string) tftypes.Value {
	return objectAttr(v, key)
}
