package acctest

import (
	"fmt"
	"math/big"
	"sort"

	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/zclconf/go-cty/cty"
)

// HCL renders a known Terraform value as an HCL expression, through hclwrite: objects as
// `{ name = ... }` with their null attributes left out, maps likewise (keys quoted when they are
// not identifiers), lists, sets and tuples as `[...]`, strings quoted with HCL's escapes
// (`$${` and `%%{` included, so that no template interpolation happens). It panics on an
// unknown value, which has no HCL spelling.
func HCL(v tftypes.Value) string {
	return string(hclwrite.Format(hclwrite.TokensForValue(ctyValue(v)).Bytes()))
}

// ResourceHCL renders a resource block of the given type and name whose attributes are the
// non-null top-level attributes of attrs, an object value, formatted as terraform fmt does.
func ResourceHCL(typeName, name string, attrs tftypes.Value) string {
	f := hclwrite.NewEmptyFile()
	body := f.Body().AppendNewBlock("resource", []string{typeName, name}).Body()
	for _, a := range sortedAttrs(attrs) {
		body.SetAttributeValue(a.name, ctyValue(a.value))
	}
	return string(hclwrite.Format(f.Bytes()))
}

type namedValue struct {
	name  string
	value tftypes.Value
}

// sortedAttrs returns the non-null attributes of an object value, sorted by name.
func sortedAttrs(v tftypes.Value) []namedValue {
	if v.IsNull() {
		return nil
	}
	if !v.IsKnown() {
		panic("acctest.HCL: an unknown value has no HCL spelling")
	}
	var m map[string]tftypes.Value
	if err := v.As(&m); err != nil {
		panic(fmt.Sprintf("acctest.HCL: not an object or map: %v", err))
	}
	out := make([]namedValue, 0, len(m))
	for k, x := range m {
		if x.IsNull() {
			continue
		}
		out = append(out, namedValue{k, x})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// ctyValue is v as the cty value hclwrite writes. Lists and sets become tuples and maps become
// objects: HCL spells them alike, and their elements need not share a type once the null
// attributes of nested objects are left out.
func ctyValue(v tftypes.Value) cty.Value {
	if !v.IsKnown() {
		panic("acctest.HCL: an unknown value has no HCL spelling")
	}
	if v.IsNull() {
		return cty.NullVal(cty.DynamicPseudoType)
	}
	typ := v.Type()
	switch {
	case typ.Is(tftypes.String):
		var s string
		_ = v.As(&s)
		return cty.StringVal(s)
	case typ.Is(tftypes.Number):
		f := new(big.Float)
		_ = v.As(&f)
		if f.IsInf() {
			panic("acctest.HCL: infinite number")
		}
		return cty.NumberVal(f)
	case typ.Is(tftypes.Bool):
		var b bool
		_ = v.As(&b)
		return cty.BoolVal(b)
	case typ.Is(tftypes.List{}), typ.Is(tftypes.Set{}), typ.Is(tftypes.Tuple{}):
		var elems []tftypes.Value
		_ = v.As(&elems)
		out := make([]cty.Value, len(elems))
		for i, e := range elems {
			out[i] = ctyValue(e)
		}
		return cty.TupleVal(out)
	case typ.Is(tftypes.Map{}):
		var m map[string]tftypes.Value
		_ = v.As(&m)
		out := make(map[string]cty.Value, len(m))
		for k, e := range m {
			out[k] = ctyValue(e)
		}
		return cty.ObjectVal(out)
	case typ.Is(tftypes.Object{}):
		out := map[string]cty.Value{}
		for _, a := range sortedAttrs(v) {
			out[a.name] = ctyValue(a.value)
		}
		return cty.ObjectVal(out)
	default:
		panic(fmt.Sprintf("acctest.HCL: unsupported type %s", typ))
	}
}
