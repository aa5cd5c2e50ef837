package kube

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	rschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
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

func (r *Resource) fieldManager() string {
	if r.data != nil && r.data.FieldManager != "" {
		return r.data.FieldManager
	}
	return DefaultFieldManager
}

// DefaultFieldManager owns the fields this provider applies.
const DefaultFieldManager = "kubeinfer"

// BoolExtra is the value of the bool extra attribute name, or def when it is absent, null or
// unknown (a plan whose configuration has an unknown value keeps the default behaviour).
func BoolExtra(extras map[string]tftypes.Value, name string, def bool) bool {
	return boolAttrOr(extras[name], def)
}

// boolAttrOr reads a raw bool, def when null or unknown.
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
