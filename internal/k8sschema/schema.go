package k8sschema

import (
	"github.com/hashicorp/terraform-plugin-framework/attr"
	dschema "github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	rschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"strings"
)

// computeTypes fills the cached types bottom-up.
func (n *Node) computeTypes() {
	for _, f := range n.Fields {
		f.computeTypes()
	}
	if n.Elem != nil {
		n.Elem.computeTypes()
	}
	n.tfType = n.buildTFType()
	n.attrType = n.buildAttrType()
}

// TFType is the Terraform type of the node's value.
func (n *Node) TFType() tftypes.Type {
	if n.tfType != nil {
		return n.tfType
	}
	return n.buildTFType()
}

// AttrType is the framework type of the node's value.
func (n *Node) AttrType() attr.Type {
	if n.attrType != nil {
		return n.attrType
	}
	return n.buildAttrType()
}

func (n *Node) buildTFType() tftypes.Type {
	switch n.Kind {
	case KindString:
		return tftypes.String
	case KindBool:
		return tftypes.Bool
	case KindInt, KindFloat:
		return tftypes.Number
	case KindList:
		return tftypes.List{ElementType: n.Elem.TFType()}
	case KindMap:
		return tftypes.Map{ElementType: n.Elem.TFType()}
	default:
		attrs := make(map[string]tftypes.Type, len(n.Fields))
		for _, f := range n.Fields {
			attrs[f.TFName] = f.TFType()
		}
		return tftypes.Object{AttributeTypes: attrs}
	}
}

func (n *Node) buildAttrType() attr.Type {
	switch n.Kind {
	case KindString:
		return types.StringType
	case KindBool:
		return types.BoolType
	case KindInt:
		return types.Int64Type
	case KindFloat:
		return types.Float64Type
	case KindList:
		return types.ListType{ElemType: n.Elem.AttrType()}
	case KindMap:
		return types.MapType{ElemType: n.Elem.AttrType()}
	default:
		attrs := make(map[string]attr.Type, len(n.Fields))
		for _, f := range n.Fields {
			attrs[f.TFName] = f.AttrType()
		}
		return types.ObjectType{AttrTypes: attrs}
	}
}

func (n *Node) description() string {
	d := n.Description
	if n.Kind == KindString && n.Format == FormatIntOrString {
		if strings.Contains(d, "port name") {
			d += " Written as a string (\"8080\" or \"http\")." // a port: no percentage
		} else {
			d += " Written as a string: a number (\"1\") or a percentage (\"10%\")."
		}
	}
	if n.Kind == KindString && n.Format == FormatQuantity {
		d += " A Kubernetes quantity such as \"500m\", \"16Gi\" or \"8\"."
	}
	return d
}

func (n *Node) flags() (required, optional, computed bool) {
	switch n.Mode {
	case Required:
		return true, false, false
	case OptionalComputed:
		return false, true, true
	case Computed:
		return false, false, true
	default:
		return false, true, false
	}
}

// ResourceAttributes returns the resource schema attributes of an object node's fields.
func (n *Node) ResourceAttributes() map[string]rschema.Attribute {
	out := make(map[string]rschema.Attribute, len(n.Fields))
	for _, f := range n.Fields {
		out[f.TFName] = f.ResourceAttribute()
	}
	return out
}

// ResourceAttribute returns the resource schema attribute of the node.
func (n *Node) ResourceAttribute() rschema.Attribute {
	req, opt, comp := n.flags()
	desc := n.description()
	switch n.Kind {
	case KindString:
		return rschema.StringAttribute{Required: req, Optional: opt, Computed: comp, Sensitive: n.Sensitive, MarkdownDescription: desc}
	case KindBool:
		return rschema.BoolAttribute{Required: req, Optional: opt, Computed: comp, Sensitive: n.Sensitive, MarkdownDescription: desc}
	case KindInt:
		return rschema.Int64Attribute{Required: req, Optional: opt, Computed: comp, Sensitive: n.Sensitive, MarkdownDescription: desc}
	case KindFloat:
		return rschema.Float64Attribute{Required: req, Optional: opt, Computed: comp, Sensitive: n.Sensitive, MarkdownDescription: desc}
	case KindList:
		if n.Elem.Kind == KindObject {
			return rschema.ListNestedAttribute{Required: req, Optional: opt, Computed: comp, Sensitive: n.Sensitive, MarkdownDescription: desc,
				CustomType:   n.listType(),
				NestedObject: rschema.NestedAttributeObject{Attributes: n.Elem.ResourceAttributes(), CustomType: n.Elem.objectType()}}
		}
		return rschema.ListAttribute{Required: req, Optional: opt, Computed: comp, Sensitive: n.Sensitive, MarkdownDescription: desc, ElementType: n.Elem.AttrType()}
	case KindMap:
		if n.Elem.Kind == KindObject {
			return rschema.MapNestedAttribute{Required: req, Optional: opt, Computed: comp, Sensitive: n.Sensitive, MarkdownDescription: desc,
				CustomType:   n.mapType(),
				NestedObject: rschema.NestedAttributeObject{Attributes: n.Elem.ResourceAttributes(), CustomType: n.Elem.objectType()}}
		}
		return rschema.MapAttribute{Required: req, Optional: opt, Computed: comp, Sensitive: n.Sensitive, MarkdownDescription: desc, ElementType: n.Elem.AttrType()}
	default:
		return rschema.SingleNestedAttribute{Required: req, Optional: opt, Computed: comp, Sensitive: n.Sensitive, MarkdownDescription: desc,
			CustomType: n.objectType(), Attributes: n.ResourceAttributes()}
	}
}

// DataSourceAttributes returns data source attributes: everything computed, except the nodes
// listed in inputs (dotted JSON paths) which are required or optional lookups.
func (n *Node) DataSourceAttributes(inputs map[string]Mode) map[string]dschema.Attribute {
	out := make(map[string]dschema.Attribute, len(n.Fields))
	for _, f := range n.Fields {
		out[f.TFName] = f.dataSourceAttribute(inputs)
	}
	return out
}

func (n *Node) dataSourceAttribute(inputs map[string]Mode) dschema.Attribute {
	m, isInput := inputs[n.path]
	req, opt, comp := m == Required && isInput, m != Required && isInput, !isInput
	if m == OptionalComputed && isInput {
		comp = true
	}
	desc := n.description()
	switch n.Kind {
	case KindString:
		return dschema.StringAttribute{Required: req, Optional: opt, Computed: comp, Sensitive: n.Sensitive, MarkdownDescription: desc}
	case KindBool:
		return dschema.BoolAttribute{Required: req, Optional: opt, Computed: comp, Sensitive: n.Sensitive, MarkdownDescription: desc}
	case KindInt:
		return dschema.Int64Attribute{Required: req, Optional: opt, Computed: comp, Sensitive: n.Sensitive, MarkdownDescription: desc}
	case KindFloat:
		return dschema.Float64Attribute{Required: req, Optional: opt, Computed: comp, Sensitive: n.Sensitive, MarkdownDescription: desc}
	case KindList:
		if n.Elem.Kind == KindObject {
			return dschema.ListNestedAttribute{Computed: true, Sensitive: n.Sensitive, MarkdownDescription: desc,
				CustomType:   n.listType(),
				NestedObject: dschema.NestedAttributeObject{Attributes: n.Elem.DataSourceAttributes(inputs), CustomType: n.Elem.objectType()}}
		}
		return dschema.ListAttribute{Computed: true, Sensitive: n.Sensitive, MarkdownDescription: desc, ElementType: n.Elem.AttrType()}
	case KindMap:
		if n.Elem.Kind == KindObject {
			return dschema.MapNestedAttribute{Computed: true, Sensitive: n.Sensitive, MarkdownDescription: desc,
				CustomType:   n.mapType(),
				NestedObject: dschema.NestedAttributeObject{Attributes: n.Elem.DataSourceAttributes(inputs), CustomType: n.Elem.objectType()}}
		}
		return dschema.MapAttribute{Computed: true, Sensitive: n.Sensitive, MarkdownDescription: desc, ElementType: n.Elem.AttrType()}
	default:
		return dschema.SingleNestedAttribute{Required: req, Optional: opt, Computed: comp, Sensitive: n.Sensitive, MarkdownDescription: desc,
			CustomType: n.objectType(), Attributes: n.DataSourceAttributes(inputs)}
	}
}

// The nested attributes' custom types are the node's cached types.
func (n *Node) objectType() types.ObjectType { t, _ := n.AttrType().(types.ObjectType); return t }
func (n *Node) listType() types.ListType     { t, _ := n.AttrType().(types.ListType); return t }
func (n *Node) mapType() types.MapType       { t, _ := n.AttrType().(types.MapType); return t }
