package kube

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-log/tflog"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v6/value"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/k8sschema"
)

// Server-side apply removes a field the applier stops sending only when no other field manager
// owns it; otherwise the applier just stops owning it and the value stays (Kubernetes
// documentation, "Server-Side Apply", field management). So a field that `kubectl patch` added,
// or one that the kubectl or Helm that created an imported object still co-owns, survives every
// apply that leaves it out, while the plan (which shows it in state) keeps proposing its removal.
//
// The configuration is the source of truth for what it declares. Before the apply, the fields
// inside that scope which other managers own are handed over to the provider's manager by
// rewriting metadata.managedFields (as client-go's util/csaupgrade UpgradeManagedFieldsPatch
// does for client-side-apply managers, v0.37.2, with the object's resourceVersion as the
// precondition), so that the apply keeps what it sends and drops what it no longer sends.
//
// The maps others add to (labels and annotations, whose foreign keys are not drift) follow one
// rule: a key the prior state holds (the configuration declared it, or the import recorded it)
// and the configuration no longer declares is taken and removed, whoever else also set it, as
// the plan shows; a key the configuration never declared is never taken.
//
// Outside that scope nothing is taken: keys others added to those maps, status and other
// server-set fields, and the fields the apply hook leaves to others (replicas left to an
// autoscaler). csaupgrade itself moves every field of a manager, foreign keys included, which
// would then be dropped: hence the per-path hand-over.

// handover is what the provider takes from other field managers before an apply.
type handover struct {
	managedFields []metav1.ManagedFieldsEntry // the object's entries after the hand-over
	// stray are fields inside the configuration's scope that the apply does not send and
	// another manager owns: the apply removes them once they are the provider's.
	stray []strayField
	// shared says other managers co-own fields the apply sends (the previous manager of an
	// imported object): taking them lets a later removal from the configuration remove them.
	shared bool
}

// strayField is a field to remove, for messages.
type strayField struct {
	path   string // Kubernetes field path
	owners []string
}

func (h *handover) needed() bool { return h != nil && (len(h.stray) > 0 || h.shared) }

// planHandover computes the hand-over of live's fields to the provider's manager for an apply
// of body (the server-side apply document). extras are the resource's provider-only settings,
// for the apply hook; prior is the state before the apply (null on create), which tells the keys
// of labels and annotations that the configuration removed.
func (r *Resource) planHandover(live *unstructured.Unstructured, body map[string]any, extras map[string]tftypes.Value, prior tftypes.Value) (*handover, error) {
	entries := live.GetManagedFields()
	if len(entries) == 0 {
		return nil, nil
	}
	manager := r.fieldManager()
	// What the apply hook leaves to others, applied to the live object: paths it removes are
	// not ours to take.
	scope := live.DeepCopy().Object
	if r.kind.Hooks.ApplyBody != nil {
		r.kind.Hooks.ApplyBody(scope, extras)
	}
	node := r.kind.Node()
	h := &handover{}
	toUs := &fieldpath.Set{}
	out := make([]metav1.ManagedFieldsEntry, 0, len(entries)+1)
	ours := -1
	for _, e := range entries {
		if e.Manager == manager && e.Operation == metav1.ManagedFieldsOperationApply && e.Subresource == "" {
			ours = len(out)
			out = append(out, e)
			continue
		}
		// Subresource entries are controllers writing status (or an autoscaler the scale
		// subresource): never a declared field's owner to take from.
		if e.Subresource != "" || e.FieldsV1 == nil {
			out = append(out, e)
			continue
		}
		var set fieldpath.Set
		if err := set.FromJSON(e.FieldsV1.GetRawReader()); err != nil {
			return nil, fmt.Errorf("cannot read the managed fields of %q: %w", e.Manager, err)
		}
		owner := fieldOwner{manager: e.Manager, operation: string(e.Operation)}.String()
		take := &fieldpath.Set{}
		set.Iterate(func(p fieldpath.Path) {
			fp, steps, ok := declaredPath(node, live.Object, p)
			if !ok || !hasPath(scope, steps) || foreignKey(node, p, body) && !priorHoldsKey(node, prior, steps) {
				return
			}
			take.Insert(p)
			if inDocument(body, p) {
				h.shared = true // we send it too, or something under it
				return
			}
			toUs.Insert(p)
			h.addStray(fp, owner)
		})
		if take.Empty() {
			out = append(out, e)
			continue
		}
		rest := set.Difference(take)
		if rest.Empty() {
			continue // nothing left to this manager: its entry goes
		}
		raw, err := rest.ToJSON()
		if err != nil {
			return nil, err
		}
		e.FieldsV1 = metav1.NewFieldsV1(string(raw))
		out = append(out, e)
	}
	if !h.needed() {
		return nil, nil
	}
	if !toUs.Empty() {
		if ours < 0 {
			ours = len(out)
			out = append(out, metav1.ManagedFieldsEntry{
				Manager: manager, Operation: metav1.ManagedFieldsOperationApply,
				APIVersion: live.GetAPIVersion(), FieldsType: "FieldsV1",
			})
		}
		var set fieldpath.Set
		if f := out[ours].FieldsV1; f != nil {
			if err := set.FromJSON(f.GetRawReader()); err != nil {
				return nil, fmt.Errorf("cannot read the managed fields of %q: %w", manager, err)
			}
		}
		raw, err := set.Union(toUs).ToJSON()
		if err != nil {
			return nil, err
		}
		out[ours].FieldsV1 = metav1.NewFieldsV1(string(raw))
	}
	sort.Slice(h.stray, func(i, j int) bool { return h.stray[i].path < h.stray[j].path })
	h.managedFields = out
	return h, nil
}

func (h *handover) addStray(path, owner string) {
	for i := range h.stray {
		if h.stray[i].path == path {
			for _, o := range h.stray[i].owners {
				if o == owner {
					return
				}
			}
			h.stray[i].owners = append(h.stray[i].owners, owner)
			return
		}
	}
	h.stray = append(h.stray, strayField{path: path, owners: []string{owner}})
}

// declaredPath resolves a managed-fields path in the object obj under node: its Kubernetes
// field path and JSON steps. It fails for paths outside the schema and under server-set
// (computed) attributes.
func declaredPath(node *k8sschema.Node, obj any, p fieldpath.Path) (string, []any, bool) {
	n, cur, fp := node, obj, ""
	steps := make([]any, 0, len(p))
	for _, pe := range p {
		cn, cobj, cp, step, ok := stepIntoWithStep(n, cur, fp, pe)
		if !ok || cn.Mode == k8sschema.Computed {
			return "", nil, false
		}
		n, cur, fp = cn, cobj, cp
		steps = append(steps, step)
	}
	return fp, steps, len(steps) > 0
}

// foreignKey reports whether p goes through a key of a map whose foreign keys are not drift
// (labels and annotations others add, or one of the map's ForeignKeys such as the restart
// action's annotation on a pod template) that the apply body does not carry, or is such a map
// that the body does not carry at all.
func foreignKey(node *k8sschema.Node, p fieldpath.Path, body map[string]any) bool {
	n := node
	var doc any = body
	for _, pe := range p {
		if n == nil {
			return false
		}
		if n.Kind == k8sschema.KindMap && (n.KeysFromPrior || n.ForeignKeys[ptrString(pe.FieldName)]) && pe.FieldName != nil {
			m, _ := doc.(map[string]any)
			_, declared := m[*pe.FieldName]
			return !declared
		}
		switch {
		case pe.FieldName != nil && n.Kind == k8sschema.KindObject:
			n = n.FieldJSON(*pe.FieldName)
		case n.Kind == k8sschema.KindList || n.Kind == k8sschema.KindMap:
			n = n.Elem
		default:
			return false
		}
		doc = childOf(doc, pe)
	}
	// The map itself (its existence): removing it would remove every key others added.
	return n != nil && n.Kind == k8sschema.KindMap && (n.KeysFromPrior || len(n.ForeignKeys) > 0) && doc == nil
}

// priorHoldsKey reports whether steps go through a key of a map whose foreign keys are not drift
// that prior (a root value of the resource) holds: a key the configuration declared and that
// the apply, which no longer sends it, must remove.
func priorHoldsKey(node *k8sschema.Node, prior tftypes.Value, steps []any) bool {
	n, v := node, prior
	for _, s := range steps {
		if v.IsNull() || !v.IsKnown() {
			return false
		}
		switch n.Kind {
		case k8sschema.KindObject:
			name, _ := s.(string)
			f := n.FieldJSON(name)
			if f == nil {
				return false
			}
			v, n = objectAttr(v, f.TFName), f
		case k8sschema.KindList:
			i, ok := listIndex(s)
			if !ok {
				return false
			}
			v, n = listElem(v, i), n.Elem
		case k8sschema.KindMap:
			key, _ := s.(string)
			foreign := n.KeysFromPrior || n.ForeignKeys[key]
			v, n = mapElem(v, key), n.Elem
			if foreign {
				return !v.IsNull()
			}
		default:
			return false
		}
	}
	return false
}

func ptrString(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// inDocument reports whether the path p, or a path below it, is in the JSON document doc: the
// apply sends that field (or a part of it), so its manager keeps owning it.
func inDocument(doc any, p fieldpath.Path) bool {
	for _, pe := range p {
		if doc = childOf(doc, pe); doc == nil {
			return false
		}
	}
	return true
}

// childOf follows one managed-fields path element in a JSON document: a field or map key by
// name, a list element by its key fields, value or index; nil when absent.
func childOf(doc any, pe fieldpath.PathElement) any {
	if pe.FieldName != nil {
		m, _ := doc.(map[string]any)
		return m[*pe.FieldName]
	}
	l, _ := doc.([]any)
	if i := elementIndex(l, pe); i >= 0 {
		return l[i]
	}
	return nil
}

// elementIndex finds the list element that pe names, -1 when none does.
func elementIndex(l []any, pe fieldpath.PathElement) int {
	switch {
	case pe.Index != nil:
		if *pe.Index < len(l) {
			return *pe.Index
		}
	case pe.Key != nil:
		return indexOf(l, func(e any) bool {
			m, _ := e.(map[string]any)
			for _, f := range *pe.Key {
				if !value.Equals(value.NewValueInterface(m[f.Name]), f.Value) {
					return false
				}
			}
			return true
		})
	case pe.Value != nil:
		return indexOf(l, func(e any) bool { return value.Equals(value.NewValueInterface(e), *pe.Value) })
	}
	return -1
}

// writeHandover replaces the object's managed fields with the hand-over's, on the condition
// that the object is still at live's resourceVersion (a 409 Conflict otherwise).
func writeHandover(ctx context.Context, ri dynamic.ResourceInterface, live *unstructured.Unstructured, h *handover, manager string) error {
	patch, err := json.Marshal([]map[string]any{
		{"op": "replace", "path": "/metadata/managedFields", "value": h.managedFields},
		// "replace", not "test": a changed object then fails with 409 Conflict from storage
		// instead of an invalid-request error (client-go v0.37.2 util/csaupgrade).
		{"op": "replace", "path": "/metadata/resourceVersion", "value": live.GetResourceVersion()},
	})
	if err != nil {
		return err
	}
	_, err = ri.Patch(ctx, live.GetName(), types.JSONPatchType, patch, metav1.PatchOptions{FieldManager: manager})
	return err
}

// handOver reads the object and hands the fields in the configuration's scope that other
// managers own over to the provider's manager, so that the apply of body that follows removes
// what it no longer sends. With force_conflicts = false nothing is taken: an apply that would
// leave another manager's field in place fails here, naming it, instead of recording a state
// that differs from the plan. A missing object fails with errObjectGone.
func (r *Resource) handOver(ctx context.Context, ri dynamic.ResourceInterface, name string, body []byte, extras map[string]tftypes.Value, prior tftypes.Value, force bool) error {
	var doc map[string]any
	if err := json.Unmarshal(body, &doc); err != nil {
		return err
	}
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		live, err := ri.Get(ctx, name, getOptions)
		if objectGone(err, name) {
			return errObjectGone
		}
		if err != nil {
			return err
		}
		h, err := r.planHandover(live, doc, extras, prior)
		if err != nil || !h.needed() {
			return err
		}
		if !force {
			if len(h.stray) == 0 {
				return nil // shared fields stay shared: the object is deliberately shared
			}
			return &strayFieldsError{fields: h.stray, node: r.kind.Node()}
		}
		tflog.Debug(ctx, "Taking fields over from other field managers before the apply", map[string]any{
			"kind": r.kind.GVK.Kind, "object": name, "remove": len(h.stray), "shared": h.shared,
		})
		return writeHandover(ctx, ri, live, h, r.fieldManager())
	})
}

// errObjectGone: the object of an update was deleted after the plan.
var errObjectGone = errors.New("the object was deleted after the plan")

// strayFieldsError: with force_conflicts = false, fields the plan removes belong to another
// field manager, and the apply cannot remove them.
type strayFieldsError struct {
	fields []strayField
	node   *k8sschema.Node
}

func (e *strayFieldsError) Error() string {
	var b strings.Builder
	b.WriteString("The plan removes attributes that another field manager owns, and force_conflicts = false leaves them with it:\n")
	for _, f := range e.fields {
		p, _ := k8sschema.AttributePath(e.node, f.path)
		fmt.Fprintf(&b, "  %s (%s), owned by %s\n", p, f.path, strings.Join(f.owners, ", "))
	}
	b.WriteString("Set force_conflicts = true (the default) to take them over and remove them, remove them with that manager, " +
		"or declare them in the configuration.")
	return b.String()
}
