package tflintrules

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/zclconf/go-cty/cty"
)

// target is a body that the provider's schema describes: a resource or data block of one of the
// provider's types, the config block of a list block (.tfquery.hcl), or the provider block.
type target struct {
	kind   string // "resource", "data source", "list resource", "provider"
	typ    string // the resource, data source or list resource type; "kubeinfer" for the provider
	file   string
	block  *hclsyntax.Block // the resource, data, list or provider block
	body   *hclsyntax.Body  // the body the schema describes (a list block's config block)
	object *Object
}

// what names the target in messages: "kubeinfer_leaderworkerset", "data source kubeinfer_…".
func (t target) what() string {
	switch t.kind {
	case "resource":
		return t.typ
	case "provider":
		return "the " + t.typ + " provider configuration"
	default:
		return t.kind + " " + t.typ
	}
}

// Meta-arguments: what Terraform itself reads in these blocks, never passed to the provider
// (hashicorp/terraform, internal/configs/resource.go: resourceBlockSchema, dataBlockSchema;
// internal/configs/provider.go: providerBlockSchema), and for_each of provider blocks, which
// OpenTofu reads (opentofu/opentofu 1.9+, internal/configs/provider.go).
var (
	resourceMetaAttrs  = map[string]bool{"count": true, "for_each": true, "depends_on": true, "provider": true}
	resourceMetaBlocks = map[string]bool{"lifecycle": true, "provisioner": true, "connection": true}
	dataMetaAttrs      = resourceMetaAttrs
	dataMetaBlocks     = map[string]bool{"lifecycle": true}
	providerMetaAttrs  = map[string]bool{"alias": true, "version": true, "for_each": true}
	noMeta             = map[string]bool{}
)

func (t target) metaAttrs() map[string]bool {
	switch t.kind {
	case "resource":
		return resourceMetaAttrs
	case "data source":
		return dataMetaAttrs
	case "provider":
		return providerMetaAttrs
	}
	return noMeta
}

func (t target) metaBlocks() map[string]bool {
	switch t.kind {
	case "resource":
		return resourceMetaBlocks
	case "data source":
		return dataMetaBlocks
	}
	return noMeta
}

// isQueryFile: a `terraform query` file, whose list blocks have a config block.
func isQueryFile(name string) bool { return strings.HasSuffix(name, ".tfquery.hcl") }

// isOverrideFile: a Terraform override file (override.tf, *_override.tf and their .tf.json forms),
// whose blocks are merged into the blocks of other files.
func isOverrideFile(name string) bool {
	base := strings.TrimSuffix(strings.TrimSuffix(filepath.Base(name), ".json"), ".tf")
	return base == "override" || strings.HasSuffix(base, "_override")
}

// targets lists the bodies of the files that the schema describes, in file and source order.
// Files in the JSON syntax are left out: their objects are not expressions with key ranges.
func targets(files map[string]*hcl.File, s *Schema) []target {
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	var out []target
	for _, name := range names {
		f := files[name]
		if f == nil {
			continue
		}
		body, ok := f.Body.(*hclsyntax.Body)
		if !ok {
			continue
		}
		for _, b := range body.Blocks {
			switch {
			case b.Type == "resource" && len(b.Labels) == 2 && s.Resources[b.Labels[0]] != nil:
				out = append(out, target{"resource", b.Labels[0], name, b, b.Body, s.Resources[b.Labels[0]]})
			case b.Type == "data" && len(b.Labels) == 2 && s.DataSources[b.Labels[0]] != nil:
				out = append(out, target{"data source", b.Labels[0], name, b, b.Body, s.DataSources[b.Labels[0]]})
			case b.Type == "provider" && len(b.Labels) == 1 && b.Labels[0] == typeName && s.Provider != nil:
				out = append(out, target{"provider", typeName, name, b, b.Body, s.Provider})
			case b.Type == "list" && isQueryFile(name) && len(b.Labels) == 2 && s.ListResources[b.Labels[0]] != nil:
				for _, c := range b.Body.Blocks {
					if c.Type == "config" {
						out = append(out, target{"list resource", b.Labels[0], name, b, c.Body, s.ListResources[b.Labels[0]]})
					}
				}
			}
		}
	}
	return out
}

// sortedAttributes returns a body's attributes in source order.
func sortedAttributes(body *hclsyntax.Body) []*hclsyntax.Attribute {
	out := make([]*hclsyntax.Attribute, 0, len(body.Attributes))
	for _, a := range body.Attributes {
		out = append(out, a)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].SrcRange.Start.Byte < out[j].SrcRange.Start.Byte })
	return out
}

// unknownKey is a key of an object constructor that is not an attribute of the object.
type unknownKey struct {
	path   string // the object's path: "" for the body, "spec.containers[0]" below it
	key    string
	rng    hcl.Range // the key expression's range
	object *Object
	// present: the keys written beside it (a fix must not rename it to one of them).
	present map[string]bool
}

// keyName returns the name an object constructor's key spells, when it is a literal: a bare
// name or a string without interpolations.
func keyName(expr hclsyntax.Expression) (string, bool) {
	if k, ok := expr.(*hclsyntax.ObjectConsKeyExpr); ok {
		if k.ForceNonLiteral {
			return "", false
		}
		if name := hcl.ExprAsKeyword(k.Wrapped); name != "" {
			return name, true
		}
		expr = k.Wrapped
	}
	if len(expr.Variables()) > 0 {
		return "", false
	}
	v, diags := expr.Value(nil)
	if diags.HasErrors() || !v.IsKnown() || v.IsNull() || v.Type() != cty.String {
		return "", false
	}
	return v.AsString(), true
}

// alternatives are the expressions that may give expr's value: expr itself, the expression in
// parentheses, both results of a conditional.
func alternatives(expr hclsyntax.Expression) []hclsyntax.Expression {
	switch e := expr.(type) {
	case *hclsyntax.ParenthesesExpr:
		return alternatives(e.Expression)
	case *hclsyntax.ConditionalExpr:
		return append(alternatives(e.TrueResult), alternatives(e.FalseResult)...)
	}
	return []hclsyntax.Expression{expr}
}

func joinPath(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// walkObject reports the unknown keys of the object constructors expr may be, and walks the
// values of the known ones.
func walkObject(expr hclsyntax.Expression, obj *Object, path string, report func(unknownKey)) {
	for _, alt := range alternatives(expr) {
		oc, ok := alt.(*hclsyntax.ObjectConsExpr)
		if !ok {
			continue
		}
		present := map[string]bool{}
		for _, item := range oc.Items {
			if name, ok := keyName(item.KeyExpr); ok {
				present[name] = true
			}
		}
		for _, item := range oc.Items {
			name, ok := keyName(item.KeyExpr)
			if !ok {
				continue
			}
			at := obj.Attrs[name]
			if at == nil {
				report(unknownKey{path: path, key: name, rng: item.KeyExpr.Range(), object: obj, present: present})
				continue
			}
			walkValue(item.ValueExpr, at, joinPath(path, name), report)
		}
	}
}

// walkValue walks the value of the attribute at at path, as far as it holds object constructors.
func walkValue(expr hclsyntax.Expression, at *Attribute, path string, report func(unknownKey)) {
	switch at.Nesting {
	case NestingSingle:
		walkObject(expr, at.Nested, path, report)
	case NestingList, NestingSet:
		for _, alt := range alternatives(expr) {
			switch e := alt.(type) {
			case *hclsyntax.TupleConsExpr:
				for i, el := range e.Exprs {
					walkObject(el, at.Nested, fmt.Sprintf("%s[%d]", path, i), report)
				}
			case *hclsyntax.ForExpr:
				if e.KeyExpr == nil {
					walkObject(e.ValExpr, at.Nested, path+"[*]", report)
				}
			}
		}
	case NestingMap:
		for _, alt := range alternatives(expr) {
			switch e := alt.(type) {
			case *hclsyntax.ObjectConsExpr:
				for _, item := range e.Items {
					key, ok := keyName(item.KeyExpr)
					if !ok {
						key = "*"
					}
					walkObject(item.ValueExpr, at.Nested, fmt.Sprintf("%s[%q]", path, key), report)
				}
			case *hclsyntax.ForExpr:
				if e.KeyExpr != nil {
					walkObject(e.ValExpr, at.Nested, path+`["*"]`, report)
				}
			}
		}
	}
}

// exprAt returns the range of the deepest expression of body that the attribute path reaches:
// the value the path names when the configuration spells it out, else the nearest enclosing
// object or tuple constructor, else fallback (the path is empty or names an absent attribute).
func exprAt(body *hclsyntax.Body, p *tftypes.AttributePath, fallback hcl.Range) hcl.Range {
	if p == nil || len(p.Steps()) == 0 {
		return fallback
	}
	steps := p.Steps()
	first, ok := steps[0].(tftypes.AttributeName)
	if !ok {
		return fallback
	}
	attr := body.Attributes[string(first)]
	if attr == nil {
		return fallback
	}
	expr := attr.Expr
	for _, step := range steps[1:] {
		for {
			pe, ok := expr.(*hclsyntax.ParenthesesExpr)
			if !ok {
				break
			}
			expr = pe.Expression
		}
		next := hclsyntax.Expression(nil)
		switch s := step.(type) {
		case tftypes.AttributeName:
			next = itemValue(expr, string(s))
		case tftypes.ElementKeyString:
			next = itemValue(expr, string(s))
		case tftypes.ElementKeyInt:
			if tc, ok := expr.(*hclsyntax.TupleConsExpr); ok && int(s) >= 0 && int(s) < len(tc.Exprs) {
				next = tc.Exprs[s]
			}
		}
		if next == nil {
			break
		}
		expr = next
	}
	return expr.Range()
}

// itemValue is the value of the item of an object constructor whose key is name, or nil.
func itemValue(expr hclsyntax.Expression, name string) hclsyntax.Expression {
	oc, ok := expr.(*hclsyntax.ObjectConsExpr)
	if !ok {
		return nil
	}
	for _, item := range oc.Items {
		if k, ok := keyName(item.KeyExpr); ok && k == name {
			return item.ValueExpr
		}
	}
	return nil
}
