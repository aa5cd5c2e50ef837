package kube

import (
	"context"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/dynamic"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/k8sschema"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kindrules"
)

// Warning is a plan-time warning attached to an attribute (kindrules.Warning).
type Warning = kindrules.Warning

// Kind is one Kubernetes kind served by the generic resource and data source: its offline rules
// (the embedded kindrules.Kind: schema, defaults, validation) and what talks to the cluster
// (the placement preview and the hooks). FromRules makes one; everything that is the same for
// every kind lives here.
type Kind struct {
	*kindrules.Kind
	// Placement returns what the placement preview places for the planned object, each workload
	// with the attribute its verdict is reported on; prior is the object as it is now (the
	// state), nil for a create, so an update is played out over the groups running now. Nil for
	// kinds without pods.
	Placement func(obj, prior runtime.Object) []PlacementWorkload
	// Hooks customise the apply body, the plan and the waiting.
	Hooks Hooks
}

// Hooks are optional kind-specific steps.
type Hooks struct {
	// ApplyBody edits the server-side apply body (e.g. leaves replicas to an autoscaler).
	ApplyBody func(body map[string]any, extras map[string]tftypes.Value)
	// PlanObject adjusts the planned node value (e.g. keeps replicas from state). It never
	// replaces a value the configuration sets: Terraform rejects a plan that does ("Provider
	// produced invalid plan"); a rule that forbids such a value reports it.
	PlanObject func(config, plan, state tftypes.Value, extras map[string]tftypes.Value) tftypes.Value
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
	resp.Schema = r.kind.ResourceSchema(ctx)
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
