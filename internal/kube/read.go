package kube

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-log/tflog"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/k8sschema"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kindrules"
)

// stateFrom turns a server object into state, keeping prior's spelling where equal.
func (r *Resource) stateFrom(prior tftypes.Value, u *unstructured.Unstructured, importing bool) (tftypes.Value, error) {
	node := r.kind.Node()
	u, annotations := withoutSettingsAnnotation(u)
	if importing {
		// kubectl's own record of a client-side apply is bookkeeping no configuration declares;
		// imported into state, it would plan its removal on the first plan.
		u, _ = withoutAnnotations(u, kubectlLastApplied)
	}
	obj, err := r.kind.FromServer(u)
	if err != nil {
		return tftypes.Value{}, err
	}
	if r.kind.ClearServerDefaults != nil {
		r.kind.ClearServerDefaults(obj, prior)
	}
	fresh := k8sschema.Encode(node, obj)
	priorAttrs := ObjectAttrs(prior)
	var merged tftypes.Value
	if importing {
		merged = fresh
	} else {
		nodePrior := tftypes.NewValue(node.TFType(), pick(priorAttrs, node))
		merged = k8sschema.Merge(node, nodePrior, fresh)
	}
	attrs := ObjectAttrs(merged)
	for k, v := range priorAttrs {
		if _, isNode := attrs[k]; !isNode {
			attrs[k] = v
		}
	}
	meta := metaOf(obj)
	attrs[kindrules.AttrID] = tftypes.NewValue(tftypes.String, r.importID(meta))
	if r.kind.Derive != nil {
		for name, v := range r.kind.Derive(obj, r.derivedTypes(prior)) {
			attrs[name] = v
		}
	}
	if importing {
		for k, v := range r.decodeSettings(annotations) {
			attrs[k] = v
		}
		if t, ok := attrs[kindrules.AttrTimeouts]; ok {
			attrs[kindrules.AttrTimeouts] = decodeTimeouts(t.Type(), annotations)
		}
	}
	return tftypes.NewValue(prior.Type(), attrs), nil
}

// pick returns the node's attributes of a root value, null where absent.
func pick(attrs map[string]tftypes.Value, node *k8sschema.Node) map[string]tftypes.Value {
	out := make(map[string]tftypes.Value, len(node.Fields))
	for _, f := range node.Fields {
		v, ok := attrs[f.TFName]
		if !ok {
			v = k8sschema.NullValue(f)
		}
		out[f.TFName] = v
	}
	return out
}

func (r *Resource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var private []byte
	if req.Private != nil {
		private = rawPrivate(ctx, req.Private, &resp.Diagnostics)
	}
	st, removed, private, diags := r.ReadRaw(ctx, req.State.Raw, private)
	resp.Diagnostics.Append(diags...)
	if diags.HasError() {
		return
	}
	if resp.Private != nil && !removed {
		setRawPrivate(ctx, resp.Private, private, &resp.Diagnostics)
	}
	if removed {
		resp.State.RemoveResource(ctx) // deleted out of band: the next plan re-creates it
		return
	}
	resp.State.Raw = st
	if resp.Identity != nil {
		resp.Identity.Raw = r.IdentityOf(st)
	}
}

// ReadRaw refreshes prior from the server; removed reports an object deleted out of band.
// private is the state's private state (the framework's encoding), returned as the refresh
// leaves it. Its creation token of a create whose answer was lost keeps the object found only
// if the object carries it; once ReadRaw succeeds, that mark has served.
func (r *Resource) ReadRaw(ctx context.Context, prior tftypes.Value, private []byte) (st tftypes.Value, removed bool, newPrivate []byte, diags diag.Diagnostics) {
	attrs := ObjectAttrs(prior)
	meta, ok := metaFromAttrs(attrs)
	if !ok {
		diags.AddError("Invalid state", "The state has no metadata.name; re-import the object.")
		return prior, false, private, diags
	}
	u, removed, diags := r.Fetch(ctx, meta.namespace, meta.name)
	if u == nil {
		return prior, removed, private, diags
	}
	if token := UnconfirmedCreate(private); token != "" {
		private = WithoutUnconfirmedCreate(private)
		if !r.confirmCreate(u, token, &diags) {
			return prior, true, private, diags
		}
	}
	st, private, more := r.ReadFrom(prior, r.AfterRead(ctx, u), isImporting(attrs, r.kind.Node()), private)
	diags.Append(more...)
	return st, false, private, diags
}

// ReadsOtherObjects reports whether the kind's state depends on other objects too (AfterRead):
// then an unchanged resourceVersion does not mean an unchanged state.
func (r *Resource) ReadsOtherObjects() bool { return r.kind.Hooks.AfterRead != nil }

// AfterRead is the object read as the state records it: the kind's AfterRead hook applied.
func (r *Resource) AfterRead(ctx context.Context, u *unstructured.Unstructured) *unstructured.Unstructured {
	if r.kind.Hooks.AfterRead == nil || r.data == nil || r.data.Client == nil {
		return u
	}
	dyn, err := r.data.Client.Dynamic()
	if err != nil {
		return u
	}
	return r.kind.Hooks.AfterRead(ctx, dyn, u)
}

// Fetch gets the object namespace/name; removed reports that it no longer exists.
func (r *Resource) Fetch(ctx context.Context, namespace, name string) (u *unstructured.Unstructured, removed bool, diags diag.Diagnostics) {
	meta := objMeta{name: name, namespace: namespace}
	ri := r.client(&diags, meta.namespace)
	if ri == nil {
		return nil, false, diags
	}
	u, err := ri.Get(ctx, meta.name, getOptions)
	if objectGone(err, meta.name) {
		tflog.Debug(ctx, "The object is gone from the cluster: removing it from the state", map[string]any{
			"kind": r.kind.GVK.Kind, "object": r.describe(meta),
		})
		return nil, true, diags
	}
	if isNotFound(err) {
		diags.AddError(fmt.Sprintf("Cannot read %s %q", r.kind.GVK.Kind, r.describe(meta)), notServedDetail(r.kind.GVR(), r.kind.GVK.Kind, err))
		return nil, false, diags
	}
	if err != nil {
		diags.AddError("Cannot read "+r.kind.GVK.Kind, apiErrorDetail(err))
		return nil, false, diags
	}
	return u, false, diags
}

// ReadFrom computes the refreshed state from the prior state and the object read, and the
// private state (the framework's encoding) with what the refresh found: the attributes other
// field managers own (foreignowned.go) and whether another configuration applied the object
// last (otherconfiguration.go).
func (r *Resource) ReadFrom(prior tftypes.Value, u *unstructured.Unstructured, importing bool, private []byte) (tftypes.Value, []byte, diag.Diagnostics) {
	var diags diag.Diagnostics
	st, err := r.stateFrom(prior, u, importing)
	if err != nil {
		diags.AddError("Cannot read back "+r.kind.GVK.Kind, err.Error())
		return prior, private, diags
	}
	if !importing {
		diags.Append(r.takeoverWarning(prior, st, u)...)
	}
	private = WithForeignOwned(private, r.foreignOwnedRecord(u))
	return st, markConfiguration(private, u, importing), diags
}

// isImporting reports whether state holds nothing but the identity (fresh from ImportState).
func isImporting(attrs map[string]tftypes.Value, node *k8sschema.Node) bool {
	for _, f := range node.Fields {
		if f.TFName == "metadata" {
			continue
		}
		if v, ok := attrs[f.TFName]; ok && !v.IsNull() {
			return false
		}
	}
	return true
}

func metaFromAttrs(attrs map[string]tftypes.Value) (objMeta, bool) {
	mv, ok := attrs["metadata"]
	if !ok || mv.IsNull() || !mv.IsKnown() {
		return objMeta{}, false
	}
	var m map[string]tftypes.Value
	_ = mv.As(&m)
	name, ok := KnownString(m["name"])
	ns, _ := KnownString(m["namespace"])
	return objMeta{name, ns}, ok
}
