package kube

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kindrules"
)

// A names data source lists the objects of a managed kind by namespace and label selector, as
// its list resource does, for the CLIs without `terraform query` (OpenTofu, Terraform before
// 1.14): each object's name, import ID and identity, for import blocks with for_each, from
// which `plan -generate-config-out` writes the resource blocks. Objects a controller owns are
// left out unless include_controlled, with the list resource's warning (see listObjects).
// Only names: the objects' values are the import's to read, and a list of whole LeaderWorkerSets
// would carry every pod template field of every object in the state.

// NewNamesDataSource returns the data source <type>s of the managed kind k.
func NewNamesDataSource(k *Kind) func() datasource.DataSource {
	return func() datasource.DataSource { return &NamesDataSource{listingDataSource{kind: k}} }
}

// NamesDataSource lists the names and identities of a managed kind's objects.
type NamesDataSource struct{ listingDataSource }

var _ datasource.DataSourceWithConfigure = (*NamesDataSource)(nil)

func (d *NamesDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = d.kind.NamesDataSourceSchema()
}

func (d *NamesDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	l, ok := d.readScope(req, kindrules.NamesAttrItems, &resp.Diagnostics)
	if !ok {
		return
	}
	includeControlled := false
	if v := l.attrs[kindrules.ListAttrIncludeControlled]; v.IsKnown() && !v.IsNull() {
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
			kindrules.IdentityName:      tftypes.NewValue(tftypes.String, meta.name),
			kindrules.NamesAttrImportID: tftypes.NewValue(tftypes.String, r.importID(meta)),
			kindrules.NamesAttrIdentity: r.IdentityValue(meta.namespace, meta.name),
			kindrules.NamesAttrOwner:    owner,
		}
		if d.kind.Namespaced {
			item[kindrules.IdentityNamespace] = tftypes.NewValue(tftypes.String, meta.namespace)
		}
		items = append(items, tftypes.NewValue(itemType, item))
	}
	resp.State.Raw = l.state(items)
}
