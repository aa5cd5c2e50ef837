package kube

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/k8sschema"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kindrules"
)

// NewDataSource returns the generic data source that reads one object of kind k by name.
func NewDataSource(k *Kind) func() datasource.DataSource {
	return func() datasource.DataSource { return &DataSource{kind: k} }
}

// DataSource reads an existing object; every attribute but its name (and namespace) is computed.
type DataSource struct {
	kind *Kind
	data *ProviderData
}

var _ datasource.DataSourceWithConfigure = (*DataSource)(nil)

func (d *DataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_" + d.kind.TypeName
}

func (d *DataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = d.kind.DataSourceSchema()
}

func (d *DataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	data, diags := ProviderDataFrom(req.ProviderData)
	resp.Diagnostics.Append(diags...)
	d.data = data
}

func (d *DataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	attrs := ObjectAttrs(req.Config.Raw)
	meta, ok := metaFromAttrs(attrs)
	if !ok {
		resp.Diagnostics.AddError("Missing name", "metadata.name must be set.")
		return
	}
	if d.kind.Namespaced && meta.namespace == "" {
		meta.namespace = "default"
	}
	r := &Resource{kind: d.kind, data: d.data}
	ri := r.client(&resp.Diagnostics, meta.namespace)
	if ri == nil {
		return
	}
	u, err := ri.Get(ctx, meta.name, getOptions)
	if err != nil {
		resp.Diagnostics.AddError(fmt.Sprintf("Cannot read %s %q", d.kind.GVK.Kind, r.importID(meta)), apiErrorDetail(err))
		return
	}
	u, _ = withoutSettingsAnnotation(r.AfterRead(ctx, u))
	obj, err := d.kind.FromServer(u)
	if err != nil {
		resp.Diagnostics.AddError("Cannot decode "+d.kind.GVK.Kind, err.Error())
		return
	}
	out := ObjectAttrs(k8sschema.Encode(d.kind.Node(), obj))
	out[kindrules.AttrID] = tftypes.NewValue(tftypes.String, r.importID(meta))
	resp.State.Raw = tftypes.NewValue(req.Config.Raw.Type(), out)
}
