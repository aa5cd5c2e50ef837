package kube

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/k8sschema"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kindrules"
)

// A plural data source lists the objects of a kind that a controller owns, by namespace and
// label selector: for such kinds (the DisaggregatedSetRoleScalers of a set's External roles) a
// list resource cannot serve, since `terraform query` turns what it finds into import blocks of
// a managed resource, and managing the controller's object would fight the controller. The
// configuration reads them all at once instead, for example to give each External role an
// autoscaler with for_each.

// pluralMaxItems is a guard against a selector that matches a whole cluster.
const pluralMaxItems = 10000

// NewPluralDataSource returns the data source <type>s of k, which lists its objects.
func NewPluralDataSource(k *Kind) func() datasource.DataSource {
	return func() datasource.DataSource { return &PluralDataSource{listingDataSource{kind: k}} }
}

// PluralDataSource reads the objects of a kind that match a namespace and a label selector.
type PluralDataSource struct{ listingDataSource }

var _ datasource.DataSourceWithConfigure = (*PluralDataSource)(nil)

func (d *PluralDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = d.kind.PluralDataSourceSchema()
}

func (d *PluralDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	l, ok := d.readScope(req, kindrules.PluralAttrItems, &resp.Diagnostics)
	if !ok {
		return
	}
	r := &Resource{kind: d.kind, data: d.data}
	ri := r.client(&resp.Diagnostics, l.ns)
	if ri == nil {
		return
	}
	var items []tftypes.Value
	opts := metav1.ListOptions{LabelSelector: l.selector, Limit: 500}
	for {
		page, err := ri.List(ctx, opts)
		if err != nil {
			detail := apiErrorDetail(err)
			if isNotFound(err) {
				detail = notServedDetail(d.kind.GVR(), d.kind.GVK.Kind, err)
			}
			resp.Diagnostics.AddError("Cannot list "+d.kind.GVK.Kind, detail)
			return
		}
		for i := range page.Items {
			u, _ := withoutSettingsAnnotation(&page.Items[i])
			obj, err := d.kind.FromServer(u)
			if err != nil {
				resp.Diagnostics.AddError("Cannot decode "+d.kind.GVK.Kind, err.Error())
				return
			}
			items = append(items, k8sschema.Encode(d.kind.Node(), obj))
		}
		if len(items) > pluralMaxItems {
			resp.Diagnostics.AddAttributeError(path.Root(kindrules.ListAttrLabelSelector), "Too many objects",
				fmt.Sprintf("More than %d %ss match; narrow the label selector.", pluralMaxItems, d.kind.GVK.Kind))
			return
		}
		if opts.Continue = page.GetContinue(); opts.Continue == "" {
			break
		}
	}
	// The server lists a namespace sorted by name already; the state keeps its order.
	resp.State.Raw = l.state(items)
}
