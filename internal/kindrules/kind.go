// Package kindrules is the offline half of a kind: what the API server would say about a
// configuration, worked out without a cluster. A Kind holds the kind's schema (its node tree
// built from the Go type), the defaults the server applies, its validation as field.ErrorList,
// the provider's own configuration rules and the fields whose change replaces the object; from it
// come the schemas of the kind's resource, identity, data sources and list resource.
// ValidateConfig runs those rules on a configuration value as the provider's ValidateResourceConfig
// does. Nothing here imports a Kubernetes client or the engine (package kube), so the provider
// and the TFLint plugin (internal/tflintrules) share it; package kube adds the cluster half
// (kube.Kind embeds a Kind).
package kindrules

import (
	"fmt"
	"sync"

	rschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/k8sschema"
)

// Warning is a plan-time warning attached to an attribute (to the resource when Path is nil).
type Warning struct {
	Path            *field.Path
	Summary, Detail string
}

// Kind is the offline description of one Kubernetes kind: each kind's rules package fills one
// in, and package kube serves it with the hooks that talk to the cluster.
type Kind struct {
	TypeName    string // resource type without the provider prefix, e.g. "leaderworkerset"
	GVK         schema.GroupVersionKind
	Resource    string // plural resource name
	Namespaced  bool
	NewObject   func() runtime.Object
	Description string

	// BuildNode derives the object's node tree; it runs once per process (Node).
	BuildNode func() *k8sschema.Node

	// Defaults applies the server defaults that the provider plans (visible in the plan) and
	// fills in objects read from the server that lack them; they are never sent. raw is the
	// configuration the object was decoded from, for defaults that depend on whether a field
	// was written at all (null for objects read from the server).
	Defaults func(obj runtime.Object, raw tftypes.Value)
	// Validate checks the defaulted object as the server (or its webhook, or the objects created
	// from it later) would.
	Validate func(obj runtime.Object) field.ErrorList
	// CheckConfig runs provider-only rules on the object as configured, before defaults.
	// config is the raw configuration, for rules that need to know what was written explicitly.
	CheckConfig func(obj runtime.Object, config tftypes.Value) (field.ErrorList, []Warning)
	// CheckWritten runs provider-only rules that read nothing but the configuration as written
	// and weigh its unknown values themselves (a value that may not be written at all is an
	// error even when unknown). Unlike the other rules' errors, theirs are reported while other
	// values are unknown: an unknown neighbour cannot change their verdict.
	CheckWritten func(config tftypes.Value) field.ErrorList
	// ReplaceOn lists the fields whose change forces a new object. unknown are the paths of
	// newObj whose values are not known yet (zero values in newObj): a field that may change
	// once they are known forces a new object too, as the plan cannot change its action at
	// apply (a framework RequiresReplace plans a replacement for an unknown value as well).
	ReplaceOn func(newObj, oldObj runtime.Object, unknown []*field.Path) []*field.Path
	// ValidateUpdate reports changes the server refuses that do not force a replacement.
	ValidateUpdate func(newObj, oldObj runtime.Object) field.ErrorList
	// PlanUpdate runs on a planned in-place update (prior state, no replacement) with the
	// planned and prior objects, the plan's top-level attributes and the paths whose planned
	// value is unknown: plan warnings (a nil Path warns on the resource) and errors, such as
	// the groups a rollout recreates and a guard refusing them. It decides itself which unknown
	// values leave it without a verdict (status is unknown on every update).
	PlanUpdate func(newObj, oldObj runtime.Object, extras map[string]tftypes.Value, unknown []*field.Path) ([]Warning, field.ErrorList)
	// ClearServerDefaults clears, in an object read from the server, the values a server gives
	// fields that prior (the state, or the configuration; null on import) leaves null, where
	// null means that default: fields no released CRD has, planned as null.
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

	once sync.Once
	node *k8sschema.Node
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

// As returns obj as the kind's Go type. Kinds only ever receive objects made by their own
// NewObject, so a mismatch is a programming error.
func As[T runtime.Object](obj runtime.Object) T {
	t, ok := obj.(T)
	if !ok {
		panic(fmt.Sprintf("kindrules.As: got %T", obj))
	}
	return t
}

// BoolExtra is the value of the bool extra attribute name, or def when it is absent, null or
// unknown (a plan whose configuration has an unknown value keeps the default behaviour).
func BoolExtra(extras map[string]tftypes.Value, name string, def bool) bool {
	v := extras[name]
	if !v.IsKnown() || v.IsNull() {
		return def
	}
	var b bool
	_ = v.As(&b)
	return b
}
