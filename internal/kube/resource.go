package kube

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	rschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-log/tflog"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/client-go/dynamic"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/k8sschema"
)

// Warning is a plan-time warning attached to an attribute.
type Warning struct {
	Path            *field.Path
	Summary, Detail string
}

// Kind describes one Kubernetes kind served by the generic resource and data source. Each kind
// package fills one in; everything that is the same for every kind lives here.
type Kind struct {
	TypeName    string // resource type without the provider prefix, e.g. "leaderworkerset"
	GVK         schema.GroupVersionKind
	Resource    string // plural resource name
	Namespaced  bool
	NewObject   func() runtime.Object
	Description string

	// BuildNode derives the object's node tree; it runs once per process.
	BuildNode func() *k8sschema.Node

	// Defaults applies the server defaults that the provider plans (visible in the plan) and
	// fills in objects read from the server that lack them (FromServer); they are never sent.
	// raw is the configuration the object was decoded from, for defaults that depend on whether a
	// field was written at all (null for objects read from the server).
	Defaults func(obj runtime.Object, raw tftypes.Value)
	// Validate checks the defaulted object as the server (or its webhook, or the objects created
	// from it later) would.
	Validate func(obj runtime.Object) field.ErrorList
	// CheckConfig runs provider-only rules on the object as configured, before defaults.
	// config is the raw configuration, for rules that need to know what was written explicitly.
	CheckConfig func(obj runtime.Object, config tftypes.Value) (field.ErrorList, []Warning)
	// ReplaceOn lists the fields whose change forces a new object.
	ReplaceOn func(newObj, oldObj runtime.Object) []*field.Path
	// ValidateUpdate reports changes the server refuses that do not force a replacement.
	ValidateUpdate func(newObj, oldObj runtime.Object) field.ErrorList
	// PlanUpdate runs on a planned in-place update (prior state, no replacement) with the
	// planned and prior objects, the plan's top-level attributes and the paths whose planned
	// value is unknown: plan warnings (a nil Path warns on the resource) and errors, such as
	// the groups a rollout recreates and a guard refusing them. It decides itself which unknown
	// values leave it without a verdict (status is unknown on every update).
	PlanUpdate func(newObj, oldObj runtime.Object, extras map[string]tftypes.Value, unknown []*field.Path) ([]Warning, field.ErrorList)
	// Placement returns what the placement preview places for the planned object (update: it
	// exists already), each workload with the attribute its verdict is reported on. Nil for
	// kinds without pods.
	Placement func(obj runtime.Object, update bool) []PlacementWorkload
	// ClearServerDefaults clears, in an object read from the server, the values a server gives
	// fields that prior (the state, or the configuration; null on import) leaves null, where
	// null means that default: fields no released CRD has, planned as null (a configuration
	// generated from the object must not set them).
	ClearServerDefaults func(obj runtime.Object, prior tftypes.Value)
	// UndeclaredField explains a field the installed CRD does not declare (JSON path such as
	// "spec.groupIdentity"): which API version adds it. Empty means no known explanation.
	UndeclaredField func(path string) string
	// Extras are kind-specific top-level attributes that are not part of the object.
	Extras map[string]rschema.Attribute
	// ExtraDefaults are the values of Extras in state after import.
	ExtraDefaults map[string]tftypes.Value
	// Derived are computed top-level attributes worked out from the object alone (the
	// footprint): planned from the configuration, so known at plan, and set from the object
	// read into the state.
	Derived map[string]rschema.Attribute
	// Derive returns the values of Derived for a defaulted object; types are the attributes'
	// Terraform types.
	Derive func(obj runtime.Object, types map[string]tftypes.Type) map[string]tftypes.Value
	// Hooks customise the apply body, the plan and the waiting.
	Hooks Hooks

	once sync.Once
	node *k8sschema.Node
}

// Hooks are optional kind-specific steps.
type Hooks struct {
	// ApplyBody edits the server-side apply body (e.g. leaves replicas to an autoscaler).
	ApplyBody func(body map[string]any, extras map[string]tftypes.Value)
	// PlanObject adjusts the planned node value (e.g. keeps replicas from state).
	PlanObject func(plan, state tftypes.Value, extras map[string]tftypes.Value) tftypes.Value
	// AfterApply waits for the object to be ready; it returns the final object. dyn reaches
	// other resources (e.g. to say which pods are not ready).
	AfterApply func(ctx context.Context, dyn dynamic.Interface, ri dynamic.ResourceInterface, obj *unstructured.Unstructured, extras map[string]tftypes.Value) (*unstructured.Unstructured, error)
	// AfterDelete waits, once the object is gone, for what its controller created from it (a
	// LeaderWorkerSet's StatefulSets and pods). With it, delete uses background propagation
	// instead of foreground: the garbage collector deletes the dependents without holding the
	// object back level by level, which takes a quarter of the time (20 LeaderWorkerSets: 8.5 s
	// against 34 s), and the wait still returns only when they are gone.
	AfterDelete func(ctx context.Context, dyn dynamic.Interface, namespace, name string) error
	// AfterRead adjusts the object a refresh read before it becomes state, with what other
	// objects say (the groups that run where a controller owns the count); it returns obj when
	// it has nothing to add.
	AfterRead func(ctx context.Context, dyn dynamic.Interface, obj *unstructured.Unstructured) *unstructured.Unstructured
}

// FromServer converts an object read from the server into the kind's Go type, with the
// defaults the provider plans filled in where the server has no value: a server whose CRD
// predates a field (the released LeaderWorkerSet has no groupIdentity) behaves as that field's
// default says, so the state equals the plan and nothing drifts.
func (k *Kind) FromServer(u *unstructured.Unstructured) (runtime.Object, error) {
	obj := k.NewObject()
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, obj); err != nil {
		return nil, err
	}
	if k.Defaults != nil {
		k.Defaults(obj, k8sschema.NullValue(k.Node())) // nothing to tell apart: take the object as it is
	}
	return obj, nil
}

// Node returns the kind's node tree, built on first use.
func (k *Kind) Node() *k8sschema.Node {
	k.once.Do(func() { k.node = k.BuildNode() })
	return k.node
}

// GVR is the kind's group, version and resource.
func (k *Kind) GVR() schema.GroupVersionResource {
	return k.GVK.GroupVersion().WithResource(k.Resource)
}

// Names of the attributes every resource has besides the object's own (exported for the
// protocol server, which plans their defaults and computed values itself).
const (
	AttrID             = "id"
	AttrForceConflicts = "force_conflicts"
	AttrTimeouts       = "timeouts"
)

// DefaultForceConflicts: an apply takes back the fields the configuration declares from other
// field managers, so an approved plan is carried out (as Argo CD, Flux and Crossplane do).
const DefaultForceConflicts = true

// NewResource returns the generic resource for k.
func NewResource(k *Kind) func() resource.Resource {
	return func() resource.Resource { return &Resource{kind: k} }
}

// Resource implements a Terraform resource for one Kubernetes kind with server-side apply.
//
// Its framework methods (ValidateConfig, ModifyPlan, Create, Read, ...) unwrap the request's
// tftypes values and call the exported methods that work on those raw values (ValidateRaw,
// PlanChange, ApplyRaw, ReadRaw, ...). Package protocol calls the same methods straight from
// the protocol requests, so both paths share one implementation.
type Resource struct {
	kind *Kind
	data *ProviderData
}

// ConfiguredResource returns the resource of k bound to the provider's data (nil before the
// provider is configured, enough for the offline methods): what Configure gives the framework's
// resource, for package protocol.
func ConfiguredResource(k *Kind, data *ProviderData) *Resource {
	return &Resource{kind: k, data: data}
}

var (
	_ resource.ResourceWithConfigure        = (*Resource)(nil)
	_ resource.ResourceWithImportState      = (*Resource)(nil)
	_ resource.ResourceWithModifyPlan       = (*Resource)(nil)
	_ resource.ResourceWithValidateConfig   = (*Resource)(nil)
	_ resource.ResourceWithConfigValidators = (*Resource)(nil)
)

func (r *Resource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_" + r.kind.TypeName
}

func (r *Resource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	attrs := r.kind.Node().ResourceAttributes()
	idDesc := "`name` of the object."
	if r.kind.Namespaced {
		idDesc = "`namespace/name` of the object."
	}
	attrs[AttrID] = rschema.StringAttribute{Computed: true, MarkdownDescription: "Identifier: " + idDesc,
		PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}}
	attrs[AttrForceConflicts] = rschema.BoolAttribute{Optional: true, Computed: true, Default: booldefault.StaticBool(DefaultForceConflicts),
		MarkdownDescription: "Take ownership of the fields this resource sets when another field manager (`kubectl edit`, " +
			"a controller, someone's server-side apply) has changed them, so that an approved plan is carried out, and remove " +
			"the attributes others added or co-own (a field added by `kubectl patch`, the fields of the `kubectl` or Helm " +
			"that created an imported object) when the plan removes them. Fields the configuration leaves out stay with " +
			"their managers: labels and annotations others add, `spec.replicas` of a LeaderWorkerSet with " +
			"`manage_replicas = false`. The refresh and the plan name the attributes and their managers. Set to `false` for " +
			"objects deliberately shared between managers: the apply then fails on such a conflict or removal, naming the " +
			"other manager and the fields. Defaults to `true`."}
	attrs[AttrTimeouts] = timeouts.Attributes(ctx, timeouts.Opts{Create: true, Update: true, Delete: true})
	for name, a := range r.kind.Extras {
		attrs[name] = a
	}
	for name, a := range r.kind.Derived {
		attrs[name] = a
	}
	resp.Schema = rschema.Schema{MarkdownDescription: r.kind.Description, Attributes: attrs}
}

func (r *Resource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	data, diags := ProviderDataFrom(req.ProviderData)
	resp.Diagnostics.Append(diags...)
	r.data = data
}

func (r *Resource) ConfigValidators(context.Context) []resource.ConfigValidator { return nil }

// ValidateConfig runs every plan-time rule on the configuration, offline.
func (r *Resource) ValidateConfig(_ context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	resp.Diagnostics.Append(r.ValidateRaw(req.Config.Raw)...)
}

// ValidateRaw runs the plan-time rules of the kind on a configuration value: decoding
// errors, CheckConfig's errors and warnings, and Validate on the defaulted object.
func (r *Resource) ValidateRaw(config tftypes.Value) diag.Diagnostics {
	node := r.kind.Node()
	obj := r.kind.NewObject()
	dec := k8sschema.Decode(node, config, obj, nil)
	var errs field.ErrorList
	var diags diag.Diagnostics
	if r.kind.CheckConfig != nil {
		more, warnings := r.kind.CheckConfig(obj, config)
		errs = append(errs, more...)
		for _, w := range warnings {
			p, _ := k8sschema.AttributePath(node, w.Path.String())
			diags.AddAttributeWarning(p, w.Summary, fmt.Sprintf("%s: %s", p, w.Detail))
		}
	}
	if r.kind.Validate != nil {
		defaulted := obj.DeepCopyObject()
		if r.kind.Defaults != nil {
			r.kind.Defaults(defaulted, config)
		}
		errs = append(errs, r.kind.Validate(defaulted)...)
	}
	// A value that could not be decoded (a number too large, a bad quantity) has its own error;
	// to the rules it is as good as unknown, so they add no second, misleading one about the
	// zero value that stands in for it.
	undecoded := append([]*field.Path{}, dec.Unknown...)
	for _, e := range dec.Errs {
		undecoded = append(undecoded, field.NewPath(e.Field))
	}
	diags.Append(k8sschema.Diagnostics(node, dec.Errs, dec.Unknown)...)
	diags.Append(k8sschema.Diagnostics(node, dedupe(errs), undecoded)...)
	return diags
}

// dedupe drops errors reported twice by overlapping rule sets.
func dedupe(errs field.ErrorList) field.ErrorList {
	seen := map[string]bool{}
	out := errs[:0:0]
	for _, e := range errs {
		key := e.Error()
		if seen[key] {
			continue
		}
		seen[key] = true
		out = append(out, e)
	}
	return out
}

// ModifyPlan plans the server's defaults, the identifier and replacements.
func (r *Resource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	var private []byte
	if req.Private != nil {
		private = rawPrivate(ctx, req.Private, &resp.Diagnostics)
	}
	planned, replace, diags := r.PlanChange(ctx, req.Config.Raw, req.Plan.Raw, req.State.Raw, private)
	resp.Plan.Raw = planned
	resp.RequiresReplace = append(resp.RequiresReplace, replace...)
	resp.Diagnostics.Append(diags...)
}

// PlanChange computes the planned value from the configuration, Terraform's proposed value
// (plan) and the prior state: the server's defaults for unset fields, the identifier, the
// fields whose change forces a replacement, and update-time rules.
//
// private is the prior state's private state (the framework's encoding). It tells whether the
// last apply recorded the object without seeing its wait finish: the plan is then an update,
// at least one that only waits (warnCarryOnWait says so). It holds the last refresh's record of
// the attributes other field managers own: the plan warns when it removes one of them. And it
// says whether the last refresh found the object last applied by another configuration.
func (r *Resource) PlanChange(ctx context.Context, config, plan, prior tftypes.Value, private []byte) (tftypes.Value, path.Paths, diag.Diagnostics) {
	waitPending := HasWaitPending(private)
	planned, replace, diags := r.planOnce(config, plan, prior)
	if !prior.IsNull() && plan.Equal(prior) && !diags.HasError() && (waitPending || !planned.Equal(prior)) {
		// Terraform proposed no change, but a planned default sets back a value another actor
		// changed, or the wait is carried on: the object changes while the apply runs (the
		// controller writes status during a rollout), so the server's computed attributes
		// (resourceVersion, generation, status) are unknown, as for any change.
		planned, replace, diags = r.planOnce(config, r.MarkComputedUnknown(config, plan), prior)
	}
	if waitPending && !prior.IsNull() && len(replace) == 0 && !diags.HasError() {
		warnCarryOnWait(&diags)
	}
	if len(replace) == 0 && !diags.HasError() {
		diags.Append(r.foreignRemovalWarning(ForeignOwned(private), planned, prior)...)
	}
	if meta, ok := metaFromAttrs(ObjectAttrs(prior)); ok && !diags.HasError() {
		diags.Append(r.otherConfigurationWarning(private, meta)...)
	}
	if !diags.HasError() {
		diags.Append(r.placementPreview(ctx, planned, prior)...)
	}
	return planned, replace, diags
}

// MarkComputedUnknown marks the object's computed attributes the configuration leaves null as
// unknown (the identifier stays: it never changes in place).
func (r *Resource) MarkComputedUnknown(config, plan tftypes.Value) tftypes.Value {
	cattrs := ObjectAttrs(config)
	attrs := ObjectAttrs(plan)
	for _, f := range r.kind.Node().Fields {
		attrs[f.TFName] = k8sschema.MarkComputedUnknown(f, cattrs[f.TFName], attrs[f.TFName])
	}
	return tftypes.NewValue(plan.Type(), attrs)
}

func (r *Resource) planOnce(config, plan, prior tftypes.Value) (tftypes.Value, path.Paths, diag.Diagnostics) {
	var diags diag.Diagnostics
	if plan.IsNull() {
		return plan, nil, nil // destroy
	}
	node := r.kind.Node()
	// Defaults come from the configuration, not the prior state, so that a value changed out of
	// band in a field the user left to its default shows as drift.
	defaulted := r.kind.NewObject()
	k8sschema.Decode(node, config, defaulted, nil)
	if r.kind.Defaults != nil {
		r.kind.Defaults(defaulted, config)
	}
	planned := k8sschema.PlanDefaults(node, config, plan, defaulted)
	if r.kind.Hooks.PlanObject != nil {
		planned = r.kind.Hooks.PlanObject(planned, prior, ObjectAttrs(planned))
	}
	attrs := ObjectAttrs(planned)
	if id, ok := r.plannedID(attrs); ok {
		attrs[AttrID] = tftypes.NewValue(tftypes.String, id)
	}
	planned = tftypes.NewValue(plan.Type(), attrs)
	newObj := r.kind.NewObject()
	dec := k8sschema.Decode(node, planned, newObj, nil)
	planned = r.planDerived(planned, prior, newObj, dec.Unknown)
	if prior.IsNull() {
		return planned, nil, nil
	}

	oldObj := r.kind.NewObject()
	k8sschema.Decode(node, prior, oldObj, nil)
	var replace []*field.Path
	oldMeta, newMeta := metaOf(oldObj), metaOf(newObj)
	if oldMeta.name != newMeta.name && !unknownAt(dec, "metadata.name") {
		replace = append(replace, field.NewPath("metadata", "name"))
	}
	if r.kind.Namespaced && oldMeta.namespace != newMeta.namespace && !unknownAt(dec, "metadata.namespace") {
		replace = append(replace, field.NewPath("metadata", "namespace"))
	}
	if r.kind.ReplaceOn != nil {
		replace = append(replace, r.kind.ReplaceOn(newObj, oldObj)...)
	}
	var paths path.Paths
	for _, p := range replace {
		ap, _ := k8sschema.AttributePath(node, p.String())
		paths = append(paths, ap)
	}
	if r.kind.ValidateUpdate != nil && len(replace) == 0 {
		diags.Append(k8sschema.Diagnostics(node, r.kind.ValidateUpdate(newObj, oldObj), dec.Unknown)...)
	}
	if len(replace) == 0 {
		planned = keepStableOnUpdate(planned, prior)
		if r.kind.PlanUpdate != nil {
			warnings, errs := r.kind.PlanUpdate(newObj, oldObj, ObjectAttrs(planned), dec.Unknown)
			diags.Append(warningDiags(node, warnings)...)
			diags.Append(k8sschema.Diagnostics(node, errs, nil)...) // the hook weighs the unknown values itself
		}
	}
	return planned, paths, diags
}

// planDerived sets the Derived attributes of the planned value from the planned object:
// unknown while the spec has unknown values. A prior state written before an attribute
// existed keeps it null when nothing else changes, so that a provider upgrade plans no update
// (the next refresh or apply records it).
func (r *Resource) planDerived(planned, prior tftypes.Value, obj runtime.Object, unknown []*field.Path) tftypes.Value {
	if r.kind.Derive == nil {
		return planned
	}
	attrs := ObjectAttrs(planned)
	types := r.derivedTypes(planned)
	specUnknown := false
	for _, p := range unknown {
		if p.Root().String() == "spec" {
			specUnknown = true
			break
		}
	}
	var values map[string]tftypes.Value
	if !specUnknown {
		values = r.kind.Derive(obj, types)
	}
	for name, t := range types {
		if v, ok := values[name]; ok {
			attrs[name] = v
		} else {
			attrs[name] = tftypes.NewValue(t, tftypes.UnknownValue)
		}
	}
	if !prior.IsNull() && prior.IsKnown() {
		priorAttrs := ObjectAttrs(prior)
		upgraded := map[string]tftypes.Value{}
		for name, t := range types {
			if pv, ok := priorAttrs[name]; ok && pv.IsNull() {
				upgraded[name] = tftypes.NewValue(t, nil)
			}
		}
		if len(upgraded) > 0 && equalExcept(attrs, priorAttrs, types) {
			for name, v := range upgraded {
				attrs[name] = v
			}
		}
	}
	return tftypes.NewValue(planned.Type(), attrs)
}

// derivedTypes are the Terraform types of the Derived attributes in a resource value.
func (r *Resource) derivedTypes(v tftypes.Value) map[string]tftypes.Type {
	obj, _ := v.Type().(tftypes.Object)
	types := make(map[string]tftypes.Type, len(r.kind.Derived))
	for name := range r.kind.Derived {
		if t, ok := obj.AttributeTypes[name]; ok {
			types[name] = t
		}
	}
	return types
}

// equalExcept reports whether two attribute maps are equal outside the skipped names.
func equalExcept(a, b map[string]tftypes.Value, skip map[string]tftypes.Type) bool {
	for name, v := range a {
		if _, ok := skip[name]; ok {
			continue
		}
		if !v.Equal(b[name]) {
			return false
		}
	}
	return true
}

// stableOnUpdate are the metadata attributes an in-place update never changes: the plan keeps
// their prior value instead of "(known after apply)", which reads like a replacement.
var stableOnUpdate = []string{"uid", "creation_timestamp"}

// keepStableOnUpdate sets the stableOnUpdate attributes the plan leaves unknown to their prior value.
func keepStableOnUpdate(planned, prior tftypes.Value) tftypes.Value {
	attrs := ObjectAttrs(planned)
	meta, priorMeta := ObjectAttrs(attrs["metadata"]), ObjectAttrs(ObjectAttrs(prior)["metadata"])
	changed := false
	for _, name := range stableOnUpdate {
		if v, ok := meta[name]; ok && !v.IsKnown() && !priorMeta[name].IsNull() && priorMeta[name].IsKnown() {
			meta[name] = priorMeta[name]
			changed = true
		}
	}
	if !changed {
		return planned
	}
	attrs["metadata"] = tftypes.NewValue(attrs["metadata"].Type(), meta)
	return tftypes.NewValue(planned.Type(), attrs)
}

// warningDiags converts kind warnings to diagnostics on their attribute (on the resource when
// the path is nil).
func warningDiags(node *k8sschema.Node, warnings []Warning) diag.Diagnostics {
	var diags diag.Diagnostics
	for _, w := range warnings {
		if w.Path == nil {
			diags.AddWarning(w.Summary, w.Detail)
			continue
		}
		p, _ := k8sschema.AttributePath(node, w.Path.String())
		diags.AddAttributeWarning(p, w.Summary, fmt.Sprintf("%s: %s", p, w.Detail))
	}
	return diags
}

func unknownAt(d *k8sschema.Decoded, p string) bool {
	for _, u := range d.Unknown {
		if u.String() == p {
			return true
		}
	}
	return false
}

func (r *Resource) plannedID(attrs map[string]tftypes.Value) (string, bool) {
	meta, ok := attrs["metadata"]
	if !ok || !meta.IsKnown() || meta.IsNull() {
		return "", false
	}
	var m map[string]tftypes.Value
	_ = meta.As(&m)
	name, ok1 := KnownString(m["name"])
	if !ok1 {
		return "", false
	}
	if !r.kind.Namespaced {
		return name, true
	}
	ns, ok2 := KnownString(m["namespace"])
	if !ok2 {
		return "", false
	}
	return ns + "/" + name, true
}

// KnownString is v's string when it is known, not null and not empty.
func KnownString(v tftypes.Value) (string, bool) {
	if !v.IsKnown() || v.IsNull() {
		return "", false
	}
	var s string
	_ = v.As(&s)
	return s, s != ""
}

// ObjectAttrs is a copy of the attributes of object value v, to change and rebuild the object
// with tftypes.NewValue; empty for a null or unknown value.
func ObjectAttrs(v tftypes.Value) map[string]tftypes.Value {
	var m map[string]tftypes.Value
	_ = v.As(&m)
	out := make(map[string]tftypes.Value, len(m))
	for k, x := range m {
		out[k] = x
	}
	return out
}

type objMeta struct{ name, namespace string }

func metaOf(obj runtime.Object) objMeta {
	m, err := apimeta.Accessor(obj)
	if err != nil {
		return objMeta{}
	}
	return objMeta{m.GetName(), m.GetNamespace()}
}

func (r *Resource) client(diags *diag.Diagnostics, ns string) dynamic.ResourceInterface {
	if r.data == nil || r.data.Client == nil {
		diags.AddError("Provider not configured", "The kubeinfer provider has no client; configure the provider block.")
		return nil
	}
	dyn, err := r.data.Client.Dynamic()
	if err != nil {
		diags.AddError("Cannot reach the Kubernetes cluster", err.Error())
		return nil
	}
	if r.kind.Namespaced {
		return dyn.Resource(r.kind.GVR()).Namespace(ns)
	}
	return dyn.Resource(r.kind.GVR())
}

// applyBody is the server-side apply document: obj, decoded from the configuration, with only
// the fields config sets (k8sschema.ConfiguredOnly), never status or planned defaults, under the
// planned name and namespace.
func (r *Resource) applyBody(obj runtime.Object, config tftypes.Value, meta objMeta, extras map[string]tftypes.Value, creationToken string) ([]byte, error) {
	raw, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	var body map[string]any
	if err := json.Unmarshal(raw, &body); err != nil {
		return nil, err
	}
	k8sschema.ConfiguredOnly(r.kind.Node(), config, body)
	body["apiVersion"] = r.kind.GVK.GroupVersion().String()
	body["kind"] = r.kind.GVK.Kind
	m, _ := body["metadata"].(map[string]any)
	if m == nil {
		m = map[string]any{}
		body["metadata"] = m
	}
	m["name"] = meta.name
	if r.kind.Namespaced {
		m["namespace"] = meta.namespace // planned: "default" when the configuration has none
	}
	if r.kind.Hooks.ApplyBody != nil {
		r.kind.Hooks.ApplyBody(body, extras)
	}
	setSettingsAnnotation(body, r.encodeSettings(extras))
	if creationToken != "" {
		setAnnotation(body, CreationTokenAnnotation, creationToken)
	}
	return json.Marshal(body)
}

func (r *Resource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	private := r.ApplyRaw(ctx, req.Plan.Raw, req.Config.Raw, tftypes.NewValue(req.Plan.Raw.Type(), nil), nil, &resp.State.Raw, &resp.Diagnostics)
	if resp.Private != nil {
		setRawPrivate(ctx, resp.Private, private, &resp.Diagnostics)
	}
	if resp.Identity != nil {
		resp.Identity.Raw = r.IdentityOf(resp.State.Raw)
	}
}

func (r *Resource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var private []byte
	if req.Private != nil {
		private = rawPrivate(ctx, req.Private, &resp.Diagnostics)
	}
	private = r.ApplyRaw(ctx, req.Plan.Raw, req.Config.Raw, req.State.Raw, private, &resp.State.Raw, &resp.Diagnostics)
	if resp.Private != nil {
		setRawPrivate(ctx, resp.Private, private, &resp.Diagnostics)
	}
	if resp.Identity != nil {
		resp.Identity.Raw = r.IdentityOf(resp.State.Raw)
	}
}

// ApplyRaw server-side applies the configuration (fully known at apply time) and records the
// object the server returns. plan gives the planned identity and the provider-only settings;
// prior (null on create) tells which planned values of unset attributes change the object
// (k8sschema.Intent). private is the planned private state (the framework's encoding); ApplyRaw
// returns it as the state must remember it (ApplyMarks).
func (r *Resource) ApplyRaw(ctx context.Context, plan, config, prior tftypes.Value, private []byte, state *tftypes.Value, diags *diag.Diagnostics) []byte {
	var marks ApplyMarks
	r.apply(ctx, plan, config, prior, CreationToken(private), state, &marks, diags)
	return WithApplyMarks(private, marks)
}

// apply is ApplyRaw. stateToken is the state's creation token, which an update carries on the
// object (a new one when the state has none yet). marks reports what the private state must
// remember: a readiness wait (AfterApply) that did not finish (timed out or interrupted; the
// object is recorded and the next plan carries on the wait), a create whose answer was lost
// (the planned object is recorded with its creation token, and the next refresh confirms it),
// and the token the object now carries.
func (r *Resource) apply(ctx context.Context, plan, config, prior tftypes.Value, stateToken string, state *tftypes.Value, marks *ApplyMarks, diags *diag.Diagnostics) {
	node := r.kind.Node()
	create := prior.IsNull()
	intent := k8sschema.Intent(node, config, plan, prior)
	obj := r.kind.NewObject()
	dec := k8sschema.Decode(node, intent, obj, nil)
	if len(dec.Errs) > 0 {
		diags.Append(k8sschema.Diagnostics(node, dec.Errs, nil)...)
		return
	}
	extras := ObjectAttrs(plan)
	meta, ok := metaFromAttrs(extras)
	if !ok {
		diags.AddError("Cannot apply "+r.kind.GVK.Kind, "The plan has no metadata.name.")
		return
	}
	token := stateToken
	if create || token == "" {
		token = newCreationToken()
	}
	body, err := r.applyBody(obj, intent, meta, extras, token)
	if err != nil {
		diags.AddError("Cannot encode the object", err.Error())
		return
	}
	ri := r.client(diags, meta.namespace)
	if ri == nil {
		return
	}
	op := "update"
	if create {
		op = "create"
	}
	timeout := timeoutFrom(extras[AttrTimeouts], op, 20*time.Minute)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	force := boolAttrOr(extras[AttrForceConflicts], DefaultForceConflicts)
	if create {
		// An object of this name that the state does not hold is another's, whoever made it:
		// even one this provider made in an apply whose answer was lost is adopted only by the
		// refresh that finds this resource's creation token on it (confirmCreate).
		if u, err := ri.Get(ctx, meta.name, getOptions); err == nil {
			diags.AddError(fmt.Sprintf("%s %q already exists", r.kind.GVK.Kind, r.describe(meta)), r.existsDetail(u, meta))
			return
		} else if !objectGone(err, meta.name) {
			if isNotFound(err) {
				diags.AddError(fmt.Sprintf("Cannot apply %s %q", r.kind.GVK.Kind, r.describe(meta)), notServedDetail(r.kind.GVR(), r.kind.GVK.Kind, err))
				return
			}
			diags.AddError("Cannot read "+r.kind.GVK.Kind, apiErrorDetail(err))
			return
		}
	} else if err := r.handOver(ctx, ri, meta.name, body, extras, prior, force); err != nil {
		summary := fmt.Sprintf("Cannot apply %s %q", r.kind.GVK.Kind, r.describe(meta))
		var stray *strayFieldsError
		switch {
		case errors.As(err, &stray):
			diags.AddError(summary, err.Error())
		case errors.Is(err, errObjectGone):
			// Re-creating it would not be the approved in-place update: another object, with
			// another uid (which the plan keeps), and its groups started from scratch.
			diags.AddError(summary, "The object was deleted after the plan was made, so the in-place update the plan "+
				"approved cannot be carried out: nothing was applied. The next plan finds it gone and creates it.")
		case apiNotServed(err):
			diags.AddError(summary, notServedDetail(r.kind.GVR(), r.kind.GVK.Kind, err))
		default:
			diags.AddError(summary, "Cannot read the object before applying: "+apiErrorDetail(err))
		}
		return
	}
	// The body holds only what the configuration sets; it is not logged (it may hold literal
	// secret values of env entries).
	tflog.Trace(ctx, "Server-side apply", map[string]any{
		"kind": r.kind.GVK.Kind, "object": r.describe(meta), "create": create, "force": force,
		"field_manager": r.fieldManager(), "body_bytes": len(body),
	})
	out, err := ri.Patch(ctx, meta.name, applyPatchType, body, patchOptions(r.fieldManager(), force))
	lost := create && answerLost(err)
	if lost && ctx.Err() == nil {
		// The answer was lost, not necessarily the server: the object carrying this create's
		// token settles it. None means the create was not carried out.
		u, gerr := ri.Get(ctx, meta.name, getOptions)
		switch {
		case gerr == nil && u.GetAnnotations()[CreationTokenAnnotation] == token:
			out, err, lost = u, nil, false
		case objectGone(gerr, meta.name):
			lost = false
		}
	}
	if err != nil {
		summary := fmt.Sprintf("Cannot apply %s %q", r.kind.GVK.Kind, r.describe(meta))
		if lost {
			// The object may exist: record it as planned, unconfirmed, with its creation token;
			// the next refresh keeps it if the cluster has it with that token (and the plan
			// carries on its wait), and drops it otherwise. A warning, not an error: Terraform
			// taints an object whose create errs, and the next apply would replace it, for a
			// fleet of inference servers an outage (the same reason an unfinished wait warns).
			*state = unconfirmedState(plan)
			marks.UnconfirmedCreate = token
			marks.CreationToken = token
			marks.WaitPending = r.kind.Hooks.AfterApply != nil
			why := "Terraform was interrupted"
			if !errors.Is(ctx.Err(), context.Canceled) {
				why = "the API server's answer was lost (" + apiErrorDetail(err) + ")"
			}
			diags.AddWarning(fmt.Sprintf("%s %q may not have been created", r.kind.GVK.Kind, r.describe(meta)),
				"The server-side apply that creates it was sent, but "+why+" before the answer came, so the object may or may "+
					"not exist. It is recorded in the state as not yet confirmed: the next plan reads the cluster and keeps it only if "+
					"it carries this resource's creation token (then the plan carries on the wait for it), or plans its creation "+
					"again if it is missing.")
			return
		}
		if errors.Is(ctx.Err(), context.Canceled) {
			diags.AddError(summary, "Interrupted: Terraform was stopped before the API server answered the server-side apply.")
			return
		}
		if undeclared := r.undeclaredFieldDiags(ctx, ri, meta.name, patchOptions(r.fieldManager(), force), summary, err, body); undeclared.HasError() {
			diags.Append(undeclared...)
			return
		}
		if apiNotServed(err) {
			// The CRD was deleted after the plan, or the provider points at another cluster.
			diags.AddError(summary, notServedDetail(r.kind.GVR(), r.kind.GVK.Kind, err))
			return
		}
		diags.AddError(summary, apiErrorDetail(err))
		return
	}
	// From here on the object exists: always record state so a re-run converges.
	marks.CreationToken = token
	if r.kind.Hooks.AfterApply != nil {
		dyn, _ := r.data.Client.Dynamic() // already built: ri came from it
		final, werr := r.kind.Hooks.AfterApply(ctx, dyn, ri, out, extras)
		if final != nil {
			out = final
		}
		if werr != nil {
			// Whatever ended the wait (its timeout, an interrupt, a lost API server), the object
			// was applied as planned: only the wait is unfinished, and the next plan carries it
			// on. Terraform taints an object whose create reports an error, and the next apply
			// would replace it: for a fleet of inference servers, an outage. A permanent Warning
			// event (ErrPermanentWarning) is an error even on create: the object cannot become ready.
			marks.WaitPending = true
			tflog.Trace(ctx, "The readiness wait did not finish: recording the object and carrying the wait on in the next plan",
				map[string]any{"kind": r.kind.GVK.Kind, "object": r.describe(meta), "error": werr.Error()})
			if create && !errors.Is(werr, ErrPermanentWarning) {
				diags.AddWarning(fmt.Sprintf("%s %q is not ready yet", r.kind.GVK.Kind, r.describe(meta)), werr.Error())
			} else {
				diags.AddError(fmt.Sprintf("%s %q is not ready", r.kind.GVK.Kind, r.describe(meta)), werr.Error())
			}
		}
	}
	newState, err := r.stateFrom(plan, out, false)
	if err != nil {
		diags.AddError("Cannot read back "+r.kind.GVK.Kind, err.Error())
		return
	}
	*state = newState
	marks.ForeignOwned = r.foreignOwnedRecord(out)
}

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
	attrs[AttrID] = tftypes.NewValue(tftypes.String, r.importID(meta))
	if r.kind.Derive != nil {
		for name, v := range r.kind.Derive(obj, r.derivedTypes(prior)) {
			attrs[name] = v
		}
	}
	if importing {
		for k, v := range r.decodeSettings(annotations) {
			attrs[k] = v
		}
		if t, ok := attrs[AttrTimeouts]; ok {
			attrs[AttrTimeouts] = decodeTimeouts(t.Type(), annotations)
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

func (r *Resource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var token string
	if req.Private != nil {
		raw, d := req.Private.GetKey(ctx, privateUnconfirmedCreate)
		resp.Diagnostics.Append(d...)
		token = tokenFrom(raw)
	}
	resp.Diagnostics.Append(r.DeleteRaw(ctx, req.State.Raw, token)...)
}

// DeleteRaw deletes the object of state prior and waits until it is gone. unconfirmedCreate is
// the creation token of a create whose answer was lost and that no refresh has confirmed since
// (a destroy with -refresh=false): only an object carrying it is deleted.
func (r *Resource) DeleteRaw(ctx context.Context, prior tftypes.Value, unconfirmedCreate string) diag.Diagnostics {
	var diags diag.Diagnostics
	attrs := ObjectAttrs(prior)
	meta, ok := metaFromAttrs(attrs)
	if !ok {
		return nil
	}
	ri := r.client(&diags, meta.namespace)
	if ri == nil {
		return diags
	}
	timeout := timeoutFrom(attrs[AttrTimeouts], "delete", 10*time.Minute)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if unconfirmedCreate != "" {
		u, err := ri.Get(ctx, meta.name, getOptions)
		if objectGone(err, meta.name) {
			return diags // never created: nothing to delete
		}
		if err != nil {
			diags.AddError("Cannot read "+r.kind.GVK.Kind, apiErrorDetail(err))
			return diags
		}
		if u.GetAnnotations()[CreationTokenAnnotation] != unconfirmedCreate {
			diags.AddWarning(fmt.Sprintf("%s %q was not created by this resource", r.kind.GVK.Kind, r.describe(meta)),
				"The create of this resource lost the server's answer, and the object of this name does not carry its creation "+
					"token: another configuration made it. It was left alone.")
			return diags
		}
	}
	policy := metav1.DeletePropagationForeground
	if r.kind.Hooks.AfterDelete != nil {
		policy = metav1.DeletePropagationBackground
	}
	err := deleteAndWait(ctx, ri, meta.name, policy)
	if err == nil && r.kind.Hooks.AfterDelete != nil {
		// The client worked for the DELETE just made; an error here is still reported
		// rather than skipping the wait for the dependents.
		dyn, derr := r.data.Client.Dynamic()
		if derr != nil {
			err = derr
		} else {
			err = r.kind.Hooks.AfterDelete(ctx, dyn, meta.namespace, meta.name)
		}
	}
	if isNotFound(err) {
		diags.AddError(fmt.Sprintf("Cannot delete %s %q", r.kind.GVK.Kind, r.describe(meta)), notServedDetail(r.kind.GVR(), r.kind.GVK.Kind, err))
	} else if err != nil {
		diags.AddError(fmt.Sprintf("Cannot delete %s %q", r.kind.GVK.Kind, r.describe(meta)), err.Error())
	}
	return diags
}

// ImportState accepts "namespace/name" (or "name" for the default namespace, or a
// cluster-scoped kind), or an identity (see IdentitySchema).
func (r *Resource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	if req.ID == "" && req.Identity != nil && !req.Identity.Raw.IsNull() {
		meta, err := r.metaFromIdentity(req.Identity.Raw)
		if err != nil {
			resp.Diagnostics.AddAttributeError(path.Root(identityName), "Invalid import identity", err.Error())
			return
		}
		r.setImported(ctx, meta, resp)
		return
	}
	ns, name := "", req.ID
	if r.kind.Namespaced {
		if before, after, found := strings.Cut(req.ID, "/"); found {
			ns, name = before, after
		} else {
			ns = "default"
		}
	} else if strings.Contains(req.ID, "/") {
		resp.Diagnostics.AddError("Invalid import ID", fmt.Sprintf("%s is cluster-scoped: import it by name alone, not %q.", r.kind.GVK.Kind, req.ID))
		return
	}
	if name == "" || strings.Contains(name, "/") {
		resp.Diagnostics.AddError("Invalid import ID", fmt.Sprintf("Expected %s, got %q.", r.importHint(), req.ID))
		return
	}
	r.setImported(ctx, objMeta{name, ns}, resp)
}

// setImported records the object to import: its name and namespace, which the read that
// follows the import fills in from.
func (r *Resource) setImported(ctx context.Context, meta objMeta, resp *resource.ImportStateResponse) {
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, importNamePath, meta.name)...)
	if r.kind.Namespaced {
		resp.Diagnostics.Append(resp.State.SetAttribute(ctx, importNamespacePath, meta.namespace)...)
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root(AttrID), r.importID(meta))...)
	if resp.Identity != nil {
		resp.Identity.Raw = r.IdentityValue(meta.namespace, meta.name)
	}
}

func (r *Resource) importHint() string {
	if r.kind.Namespaced {
		return "namespace/name"
	}
	return "name"
}

func (r *Resource) importID(m objMeta) string {
	if r.kind.Namespaced {
		return m.namespace + "/" + m.name
	}
	return m.name
}

func (r *Resource) describe(m objMeta) string { return r.importID(m) }

func (r *Resource) fieldManager() string {
	if r.data != nil && r.data.FieldManager != "" {
		return r.data.FieldManager
	}
	return DefaultFieldManager
}

// DefaultFieldManager owns the fields this provider applies.
const DefaultFieldManager = "kubeinfer"

// boolAttrOr reads a raw bool, def when null or unknown.
// BoolExtra is the value of the bool extra attribute name, or def when it is absent, null or
// unknown (a plan whose configuration has an unknown value keeps the default behaviour).
func BoolExtra(extras map[string]tftypes.Value, name string, def bool) bool {
	return boolAttrOr(extras[name], def)
}

func boolAttrOr(v tftypes.Value, def bool) bool {
	if !v.IsKnown() || v.IsNull() {
		return def
	}
	var b bool
	_ = v.As(&b)
	return b
}

// timeoutFrom reads timeouts.<op> from a raw timeouts value.
func timeoutFrom(v tftypes.Value, op string, def time.Duration) time.Duration {
	if !v.IsKnown() || v.IsNull() {
		return def
	}
	var m map[string]tftypes.Value
	if v.As(&m) != nil {
		return def
	}
	s, ok := KnownString(m[op])
	if !ok {
		return def
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return def
	}
	return d
}

// As returns obj as the kind's Go type. Kinds only ever receive objects made by their own
// NewObject, so a mismatch is a programming error.
func As[T runtime.Object](obj runtime.Object) T {
	t, ok := obj.(T)
	if !ok {
		panic(fmt.Sprintf("kube.As: got %T", obj))
	}
	return t
}
