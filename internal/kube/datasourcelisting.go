package kube

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kindrules"
)

// listingDataSource is what the data sources <type>s share, which list the objects of a kind
// by namespace and label selector: NamesDataSource (the names of a managed kind's objects) and
// PluralDataSource (whole objects of a kind a controller owns).
type listingDataSource struct {
	kind *Kind
	data *ProviderData
}

func (d *listingDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_" + d.kind.TypeName + "s"
}

func (d *listingDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	data, diags := ProviderDataFrom(req.ProviderData)
	resp.Diagnostics.Append(diags...)
	d.data = data
}

// listing is one read of a listing data source: its configuration's attributes (the namespace
// filled in), what it lists, and the type of its items attribute.
type listing struct {
	attrs         map[string]tftypes.Value
	ns, selector  string
	itemsAttr     string
	items         tftypes.List
	configuration tftypes.Type
}

// readScope reads the scope of req: the label selector (an invalid one is an error on the
// attribute) and the namespace, "default" unless set ("" for a cluster-scoped kind). ok is false
// after an error in diags.
func (d *listingDataSource) readScope(req datasource.ReadRequest, itemsAttr string, diags *diag.Diagnostics) (l listing, ok bool) {
	l = listing{attrs: ObjectAttrs(req.Config.Raw), itemsAttr: itemsAttr, configuration: req.Config.Raw.Type()}
	l.selector, _ = KnownString(l.attrs[kindrules.ListAttrLabelSelector])
	if _, err := labels.Parse(l.selector); err != nil {
		diags.AddAttributeError(path.Root(kindrules.ListAttrLabelSelector), "Invalid label selector", err.Error())
		return l, false
	}
	if d.kind.Namespaced {
		if l.ns, _ = KnownString(l.attrs[kindrules.ListAttrNamespace]); l.ns == "" {
			l.ns = "default"
		}
		l.attrs[kindrules.ListAttrNamespace] = tftypes.NewValue(tftypes.String, l.ns)
	}
	objType, _ := l.configuration.(tftypes.Object)
	if l.items, ok = objType.AttributeTypes[itemsAttr].(tftypes.List); !ok {
		diags.AddError("Unexpected configuration type", fmt.Sprintf("%s is not a list: %v", itemsAttr, l.configuration))
	}
	return l, ok
}

// state is the data source's state: the configuration with the items found and the id.
func (l listing) state(items []tftypes.Value) tftypes.Value {
	l.attrs[l.itemsAttr] = tftypes.NewValue(l.items, items)
	l.attrs[kindrules.AttrID] = tftypes.NewValue(tftypes.String, l.ns+"?"+l.selector)
	return tftypes.NewValue(l.configuration, l.attrs)
}
