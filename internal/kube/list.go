package kube

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kindrules"
)

// List resources (Terraform 1.14+, `terraform query`): a `list` block of a kind finds the
// objects in the cluster, by namespace and label selector, whoever created them (kubectl,
// Helm, another Terraform configuration), with their identity for an import block and, with
// `include_resource = true`, the values of the configuration that reproduces each object
// (see configFrom), from which `terraform query -generate-config-out` writes resource blocks.
//
// Objects that a controller owns (a controller ownerReference: the LeaderWorkerSets a
// DisaggregatedSet creates for its roles) are left out unless `include_controlled = true`: their
// controller creates, changes and deletes them, so an import block for one makes Terraform
// manage it beside the controller, and re-create an old revision's object after the controller
// deleted it. The list says how many it left out, and whose.

var _ list.ListResourceWithConfigure = (*Resource)(nil)

// NewListResource returns the list resource of k: the same type as its managed resource.
func NewListResource(k *Kind) func() list.ListResource {
	return func() list.ListResource { return &Resource{kind: k} }
}

func (r *Resource) ListResourceConfigSchema(_ context.Context, _ list.ListResourceSchemaRequest, resp *list.ListResourceSchemaResponse) {
	resp.Schema = r.kind.ListResourceSchema()
}

func (r *Resource) List(ctx context.Context, req list.ListRequest, stream *list.ListResultsStream) {
	var diags diag.Diagnostics
	selector := listConfigString(ctx, req.Config, kindrules.ListAttrLabelSelector, &diags)
	ns := ""
	if r.kind.Namespaced {
		ns = listConfigString(ctx, req.Config, kindrules.ListAttrNamespace, &diags)
	}
	includeControlled := listConfigBool(ctx, req.Config, kindrules.ListAttrIncludeControlled, &diags)
	if selector != "" {
		if _, err := labels.Parse(selector); err != nil {
			diags.AddAttributeError(path.Root(kindrules.ListAttrLabelSelector), "Invalid label selector", err.Error())
		}
	}
	var items []unstructured.Unstructured
	var skipped []metav1.OwnerReference
	if !diags.HasError() {
		items, skipped = r.listObjects(ctx, ns, selector, req.Limit, includeControlled, &diags)
	}
	if diags.HasError() {
		stream.Results = list.ListResultsStreamDiagnostics(diags)
		return
	}
	if len(skipped) > 0 {
		// First in the stream: Terraform stops reading at the limit (terraform v1.14.3
		// internal/plugin6/grpc_provider.go, GRPCProvider.ListResource), and takes a result
		// with warnings and no identity as diagnostics only.
		diags.Append(r.skippedWarning(skipped, "the list block's config"))
	}
	stream.Results = func(push func(list.ListResult) bool) {
		if len(diags) > 0 && !push(list.ListResult{Diagnostics: diags}) {
			return
		}
		for i := range items {
			if !push(r.listResult(ctx, req, &items[i])) {
				return
			}
		}
	}
}

// listObjects lists the kind's objects page by page (500 a page, as kubectl does), up to
// limit (0: all). Unless includeControlled, objects with a controller ownerReference are left
// out; skipped holds the controller reference of each.
func (r *Resource) listObjects(ctx context.Context, ns, selector string, limit int64, includeControlled bool,
	diags *diag.Diagnostics) (items []unstructured.Unstructured, skipped []metav1.OwnerReference) {
	ri := r.client(diags, ns)
	if ri == nil {
		return nil, nil
	}
	opts := metav1.ListOptions{LabelSelector: selector, Limit: 500}
	for {
		page, err := ri.List(ctx, opts)
		if isNotFound(err) {
			diags.AddError("Cannot list "+r.kind.GVK.Kind, notServedDetail(r.kind.GVR(), r.kind.GVK.Kind, err))
			return nil, nil
		}
		if err != nil {
			diags.AddError("Cannot list "+r.kind.GVK.Kind, apiErrorDetail(err))
			return nil, nil
		}
		for i := range page.Items {
			if ref := metav1.GetControllerOf(&page.Items[i]); ref != nil && !includeControlled {
				skipped = append(skipped, *ref)
				continue
			}
			items = append(items, page.Items[i])
			if limit > 0 && int64(len(items)) >= limit {
				return items, skipped
			}
		}
		if opts.Continue = page.GetContinue(); opts.Continue == "" {
			return items, skipped
		}
	}
}

// skippedWarning says how many objects the list left out because a controller owns them, by
// the owners' kinds, e.g. "3 LeaderWorkerSets owned by a DisaggregatedSet were skipped"; where
// is the configuration in which include_controlled would list them.
func (r *Resource) skippedWarning(skipped []metav1.OwnerReference, where string) diag.Diagnostic {
	counts := map[string]int{}
	owners := map[string][]string{}
	for _, ref := range skipped {
		if len(owners[ref.Kind]) < 5 && !slices.Contains(owners[ref.Kind], ref.Name) {
			owners[ref.Kind] = append(owners[ref.Kind], ref.Name)
		}
		counts[ref.Kind]++
	}
	kinds := make([]string, 0, len(counts))
	for k := range counts {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	var parts, names []string
	for _, k := range kinds {
		parts = append(parts, fmt.Sprintf("%s owned by %s %s", countOf(counts[k], r.kind.GVK.Kind), article(k), k))
		names = append(names, fmt.Sprintf("%s %s", k, strings.Join(owners[k], ", ")))
	}
	verb := "were"
	if len(skipped) == 1 {
		verb = "was"
	}
	summary := fmt.Sprintf("%s %s skipped", strings.Join(parts, " and "), verb)
	return diag.NewWarningDiagnostic(summary, fmt.Sprintf(
		"%s. Their controller (owners: %s) creates, changes and deletes them: a resource imported from one would make "+
			"Terraform manage it beside the controller, and create it again after the controller replaced it. Manage the "+
			"owner instead, or set %s = true in %s to list them as well.",
		summary, strings.Join(names, "; "), kindrules.ListAttrIncludeControlled, where))
}

// countOf is "1 LeaderWorkerSet" or "3 LeaderWorkerSets".
func countOf(n int, kind string) string {
	if n == 1 {
		return "1 " + kind
	}
	return fmt.Sprintf("%d %ss", n, kind)
}

// article is the indefinite article of a kind's name.
func article(kind string) string {
	if kind != "" && strings.ContainsRune("AEIOU", rune(kind[0])) {
		return "an"
	}
	return "a"
}

// listResult is one object found: its identity and, when asked, its state as an import
// would record it.
func (r *Resource) listResult(ctx context.Context, req list.ListRequest, u *unstructured.Unstructured) list.ListResult {
	meta := objMeta{name: u.GetName(), namespace: u.GetNamespace()}
	display := r.importID(meta)
	if ref := metav1.GetControllerOf(u); ref != nil { // listed with include_controlled
		display += fmt.Sprintf(" (controlled by %s %s)", ref.Kind, ref.Name)
	}
	res := list.ListResult{
		DisplayName: display,
		Identity:    &tfsdk.ResourceIdentity{Schema: req.ResourceIdentitySchema, Raw: r.IdentityValue(meta.namespace, meta.name)},
	}
	if !req.IncludeResource {
		return res
	}
	st, err := r.generatedState(req.ResourceSchema.Type().TerraformType(ctx), u)
	if err != nil {
		res.Diagnostics.AddError(fmt.Sprintf("Cannot read %s %q", r.kind.GVK.Kind, r.describe(meta)), err.Error())
		return res
	}
	res.Resource = &tfsdk.Resource{Schema: req.ResourceSchema, Raw: st}
	return res
}

// generatedState is the resource value of a list result, from which `terraform query
// -generate-config-out` writes a resource block (see configFrom): the object's configuration
// without planned defaults, the provider-only settings only where the object's settings
// annotation records a value other than the default, and no kubectl bookkeeping.
func (r *Resource) generatedState(typ tftypes.Type, u *unstructured.Unstructured) (tftypes.Value, error) {
	u, annotations := withoutSettingsAnnotation(u)
	u, _ = withoutAnnotations(u, kubectlLastApplied)
	config, err := r.kind.configFrom(u)
	if err != nil {
		return tftypes.Value{}, err
	}
	attrs := ObjectAttrs(nullAttributes(typ))
	for name, v := range ObjectAttrs(config) {
		attrs[name] = v
	}
	attrs[kindrules.AttrID] = tftypes.NewValue(tftypes.String, r.importID(objMeta{name: u.GetName(), namespace: u.GetNamespace()}))
	for name, v := range r.decodeSettings(annotations) {
		attrs[name] = v
	}
	if t, ok := attrs[kindrules.AttrTimeouts]; ok {
		attrs[kindrules.AttrTimeouts] = decodeTimeouts(t.Type(), annotations)
	}
	return r.withoutDefaultSettings(tftypes.NewValue(typ, attrs)), nil
}

// withoutDefaultSettings sets the provider-only settings that hold their defaults to null, so a
// generated configuration leaves them out.
func (r *Resource) withoutDefaultSettings(v tftypes.Value) tftypes.Value {
	attrs := ObjectAttrs(v)
	for name, def := range r.settingDefaults() {
		var b bool
		if cur, ok := attrs[name]; ok && cur.IsKnown() && !cur.IsNull() && cur.As(&b) == nil && b == def {
			attrs[name] = tftypes.NewValue(cur.Type(), nil)
		}
	}
	return tftypes.NewValue(v.Type(), attrs)
}

// GeneratedConfigState is the state a resource block is generated from
// (GenerateResourceConfig, Terraform 1.14+ at import with -generate-config-out): the state
// without the planned defaults and the settings at their defaults.
func (r *Resource) GeneratedConfigState(state tftypes.Value) tftypes.Value {
	if !state.IsKnown() || state.IsNull() {
		return state
	}
	node := r.kind.Node()
	attrs := ObjectAttrs(state)
	nodeValue := r.kind.configFromState(tftypes.NewValue(node.TFType(), pick(attrs, node)))
	for name, v := range ObjectAttrs(nodeValue) {
		attrs[name] = v
	}
	return r.withoutDefaultSettings(tftypes.NewValue(state.Type(), attrs))
}

// nullAttributes is an object of typ whose attributes are all null: the state import starts
// from.
func nullAttributes(typ tftypes.Type) tftypes.Value {
	obj, ok := typ.(tftypes.Object)
	if !ok {
		return tftypes.NewValue(typ, nil)
	}
	attrs := make(map[string]tftypes.Value, len(obj.AttributeTypes))
	for name, at := range obj.AttributeTypes {
		attrs[name] = tftypes.NewValue(at, nil)
	}
	return tftypes.NewValue(typ, attrs)
}

// listConfigBool reads an optional bool of a list block's config: false when null.
func listConfigBool(ctx context.Context, config tfsdk.Config, name string, diags *diag.Diagnostics) bool {
	var v types.Bool
	diags.Append(config.GetAttribute(ctx, path.Root(name), &v)...)
	if v.IsUnknown() {
		diags.AddAttributeError(path.Root(name), "Value not known", name+" must be known when the query runs.")
	}
	return v.ValueBool()
}

// listConfigString reads an optional string of a list block's config: "" when null.
func listConfigString(ctx context.Context, config tfsdk.Config, name string, diags *diag.Diagnostics) string {
	var v types.String
	diags.Append(config.GetAttribute(ctx, path.Root(name), &v)...)
	if v.IsUnknown() {
		diags.AddAttributeError(path.Root(name), "Value not known", name+" must be known when the query runs.")
	}
	return v.ValueString()
}
