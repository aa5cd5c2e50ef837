package kube

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	dschema "github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// A names data source lists the objects of a managed kind by namespace and label selector, as
// its list resource does, for the CLIs without `terraform query` (OpenTofu, Terraform before
// 1.14): each object's name, import ID and identity, for import blocks with for_each, from
// which `plan -generate-config-out` writes the resource blocks. Objects a controller owns are
// left out unless include_controlled, with the list resource's warning (see listObjects).
// Only names: the objects' values are the import's to read, and a list of whole LeaderWorkerSets
// would carry every pod template field of every object in the state.

const (
	namesAttrItems    = "items"
	namesAttrImportID = "import_id"
	namesAttrIdentity = "identity"
	namesAttrOwner    = "controller"
)

// NewNamesDataSource returns the data source <type>s of the managed kind k.
func NewNamesDataSource(k *Kind) func() datasource.DataSource {
	return func() datasource.DataSource { return &NamesDataSource{listingDataSource{kind: k}} }
}

// NamesDataSource lists the names and identities of a managed kind's objects.
type NamesDataSource struct{ listingDataSource }

var _ datasource.DataSourceWithConfigure = (*NamesDataSource)(nil)

func (d *NamesDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	kind := d.kind.GVK.Kind
	identity := map[string]dschema.Attribute{
		identityName: dschema.StringAttribute{Computed: true, MarkdownDescription: "`metadata.name`."},
	}
	item := map[string]dschema.Attribute{
		identityName: dschema.StringAttribute{Computed: true, MarkdownDescription: fmt.Sprintf("`metadata.name` of the %s.", kind)},
		namesAttrImportID: dschema.StringAttribute{Computed: true, MarkdownDescription: fmt.Sprintf(
			"The ID an `import` block takes (`id = ...`) for the `%s` resource: %s.", d.kind.TypeName, importIDForm(d.kind))},
		namesAttrOwner: dschema.StringAttribute{Computed: true, MarkdownDescription: "The kind and name of the object's " +
			"controller (`DisaggregatedSet llama`), listed with `include_controlled = true`; null for an object no controller owns."},
	}
	attrs := d.scopeAttributes()
	attrs[listAttrIncludeControlled] = dschema.BoolAttribute{Optional: true, MarkdownDescription: fmt.Sprintf(
		"Also list the %ss that a controller owns (a `metadata.owner_references` entry with `controller = true`; for "+
			"example the LeaderWorkerSets a DisaggregatedSet creates for its roles). Default `false`: they are left out, "+
			"with a warning that counts them, because an import of one would make Terraform manage it beside its controller.", kind)}
	if d.kind.Namespaced {
		identity[identityNamespace] = dschema.StringAttribute{Computed: true, MarkdownDescription: "`metadata.namespace`."}
		item[identityNamespace] = dschema.StringAttribute{Computed: true, MarkdownDescription: fmt.Sprintf("`metadata.namespace` of the %s.", kind)}
	}
	item[namesAttrIdentity] = dschema.SingleNestedAttribute{Computed: true, Attributes: identity,
		MarkdownDescription: fmt.Sprintf("The resource identity of the %s, as an `import` block takes it (`identity = ...`; "+
			"Terraform and OpenTofu 1.12 and later).", kind)}
	attrs[namesAttrItems] = dschema.ListNestedAttribute{Computed: true,
		MarkdownDescription: fmt.Sprintf("The %ss found, sorted by name.", kind),
		NestedObject:        dschema.NestedAttributeObject{Attributes: item}}
	resp.Schema = dschema.Schema{
		MarkdownDescription: fmt.Sprintf("Lists the names and identities of the %ss of a namespace, by label selector, ", kind) +
			"to adopt them with `import` blocks and `for_each` where `terraform query` is not available (OpenTofu, " +
			"Terraform before 1.14). " + firstParagraph(d.kind.Description),
		Attributes: attrs,
	}
}

// importIDForm describes the import ID of k.
func importIDForm(k *Kind) string {
	if k.Namespaced {
		return "`namespace/name`"
	}
	return "the name"
}

func (d *NamesDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	l, ok := d.readScope(req, namesAttrItems, &resp.Diagnostics)
	if !ok {
		return
	}
	includeControlled := false
	if v := l.attrs[listAttrIncludeControlled]; v.IsKnown() && !v.IsNull() {
		_ = v.As(&includeControlled)
	}
	itemType, _ := l.items.ElementType.(tftypes.Object)

	r := &Resource{kind: d.kind, data: d.data}
	var diags diag.Diagnostics
	objs, skipped := r.listObjects(ctx, l.ns, l.selector, 0, includeControlled, &diags)
	resp.Diagnostics.Append(diags...)
	if diags.HasError() {
		return
	}
	if len(skipped) > 0 {
		resp.Diagnostics.Append(r.skippedWarning(skipped, "the data source's configuration"))
	}
	items := make([]tftypes.Value, 0, len(objs))
	for i := range objs {
		u := &objs[i]
		meta := objMeta{name: u.GetName(), namespace: u.GetNamespace()}
		owner := tftypes.NewValue(tftypes.String, nil)
		if ref := metav1.GetControllerOf(u); ref != nil {
			owner = tftypes.NewValue(tftypes.String, ref.Kind+" "+ref.Name)
		}
		item := map[string]tftypes.Value{
			identityName:      tftypes.NewValue(tftypes.String, meta.name),
			namesAttrImportID: tftypes.NewValue(tftypes.String, r.importID(meta)),
			namesAttrIdentity: r.IdentityValue(meta.namespace, meta.name),
			namesAttrOwner:    owner,
		}
		if d.kind.Namespaced {
			item[identityNamespace] = tftypes.NewValue(tftypes.String, meta.namespace)
		}
		items = append(items, tftypes.NewValue(itemType, item))
	}
	resp.State.Raw = l.state(items)
}
