package tflintrules

import (
	"context"
	"fmt"
	"sort"
	"sync"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/providerrules"
)

// Object is what may be written at one level of a configuration: the body of a resource, data
// source, list resource config block or provider block, or the object of a nested attribute.
type Object struct {
	Attrs map[string]*Attribute
	names []string // sorted
}

// Names lists the attribute names, sorted.
func (o *Object) Names() []string { return o.names }

// Nesting tells what a configuration writes for an attribute whose value holds objects.
type Nesting int

const (
	// NestingNone: the value has no objects whose keys are attribute names (a string, a number, a
	// list of strings, a map of strings: map keys are the user's, never checked).
	NestingNone Nesting = iota
	// NestingSingle: one object, { name = ... }.
	NestingSingle
	// NestingList and NestingSet: a tuple of objects, [{ ... }, { ... }].
	NestingList
	NestingSet
	// NestingMap: an object of objects whose keys are the user's, { key = { ... } }.
	NestingMap
)

// Attribute is one attribute of an Object.
type Attribute struct {
	Name string
	// Nesting and Nested describe the objects the value holds (Nested is nil for NestingNone).
	Nesting Nesting
	Nested  *Object
	// Computed without Optional: Terraform's configuration cannot set it.
	Required, Optional, Computed bool
	// Block: a nested block (`exec { ... }` of the provider block), not an attribute.
	Block bool
}

// Schema is the provider's schema as trees of known attribute names, built from the
// GetProviderSchema answer of the offline provider (package providerrules), whose schemas are
// built by the same functions as the provider's, never from a copy.
type Schema struct {
	Resources     map[string]*Object // by resource type
	DataSources   map[string]*Object // by data source type
	ListResources map[string]*Object // by list resource type: its config block
	Provider      *Object            // the provider block

	resourceTypes map[string]tftypes.Object // each resource's configuration type
}

var (
	loadOnce sync.Once
	loaded   *Schema
	loadErr  error
)

// Load returns the provider's schema; it is built once per process by an in-process server of
// the offline provider (package providerrules).
func Load() (*Schema, error) {
	loadOnce.Do(func() { loaded, loadErr = build(providerrules.NewServer()) })
	return loaded, loadErr
}

func build(server tfprotov6.ProviderServer) (*Schema, error) {
	resp, err := server.GetProviderSchema(context.Background(), &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		return nil, fmt.Errorf("the provider's schema: %w", err)
	}
	for _, d := range resp.Diagnostics {
		if d != nil && d.Severity == tfprotov6.DiagnosticSeverityError {
			return nil, fmt.Errorf("the provider's schema: %s: %s", d.Summary, d.Detail)
		}
	}
	s := &Schema{
		Resources:     map[string]*Object{},
		DataSources:   map[string]*Object{},
		ListResources: map[string]*Object{},
		resourceTypes: map[string]tftypes.Object{},
	}
	for name, sch := range resp.ResourceSchemas {
		s.Resources[name] = blockObject(sch.Block)
		typ, ok := sch.ValueType().(tftypes.Object)
		if !ok {
			return nil, fmt.Errorf("the schema of %s is not an object", name)
		}
		s.resourceTypes[name] = typ
	}
	for name, sch := range resp.DataSourceSchemas {
		s.DataSources[name] = blockObject(sch.Block)
	}
	for name, sch := range resp.ListResourceSchemas {
		s.ListResources[name] = blockObject(sch.Block)
	}
	if resp.Provider != nil {
		s.Provider = blockObject(resp.Provider.Block)
	}
	return s, nil
}

func newObject(attrs map[string]*Attribute) *Object {
	o := &Object{Attrs: attrs, names: make([]string, 0, len(attrs))}
	for n := range attrs {
		o.names = append(o.names, n)
	}
	sort.Strings(o.names)
	return o
}

// blockObject is a schema block's Object. Nested blocks (the provider block's exec; the kinds
// have nested attributes only) are entered as attributes marked Block, with their contents.
func blockObject(b *tfprotov6.SchemaBlock) *Object {
	attrs := map[string]*Attribute{}
	if b == nil {
		return newObject(attrs)
	}
	for _, a := range b.Attributes {
		if a != nil {
			attrs[a.Name] = schemaAttribute(a)
		}
	}
	for _, nb := range b.BlockTypes {
		if nb == nil {
			continue
		}
		at := &Attribute{Name: nb.TypeName, Nested: blockObject(nb.Block), Optional: true, Block: true}
		switch nb.Nesting {
		case tfprotov6.SchemaNestedBlockNestingModeList:
			at.Nesting = NestingList
		case tfprotov6.SchemaNestedBlockNestingModeSet:
			at.Nesting = NestingSet
		case tfprotov6.SchemaNestedBlockNestingModeMap:
			at.Nesting = NestingMap
		default:
			at.Nesting = NestingSingle
		}
		attrs[nb.TypeName] = at
	}
	return newObject(attrs)
}

func schemaAttribute(a *tfprotov6.SchemaAttribute) *Attribute {
	at := &Attribute{Name: a.Name, Required: a.Required, Optional: a.Optional, Computed: a.Computed}
	if a.NestedType != nil {
		attrs := map[string]*Attribute{}
		for _, c := range a.NestedType.Attributes {
			if c != nil {
				attrs[c.Name] = schemaAttribute(c)
			}
		}
		at.Nested = newObject(attrs)
		switch a.NestedType.Nesting {
		case tfprotov6.SchemaObjectNestingModeList:
			at.Nesting = NestingList
		case tfprotov6.SchemaObjectNestingModeSet:
			at.Nesting = NestingSet
		case tfprotov6.SchemaObjectNestingModeMap:
			at.Nesting = NestingMap
		default:
			at.Nesting = NestingSingle
		}
		return at
	}
	at.Nesting, at.Nested = typeNesting(a.Type)
	return at
}

// typeNesting gives an attribute of a type (not a nested attribute) the same tree when its type
// holds objects: object, list/set/map of objects. Maps of anything else have user keys.
func typeNesting(t tftypes.Type) (Nesting, *Object) {
	switch tt := t.(type) {
	case tftypes.Object:
		return NestingSingle, typeObject(tt)
	case tftypes.List:
		if o, ok := tt.ElementType.(tftypes.Object); ok {
			return NestingList, typeObject(o)
		}
	case tftypes.Set:
		if o, ok := tt.ElementType.(tftypes.Object); ok {
			return NestingSet, typeObject(o)
		}
	case tftypes.Map:
		if o, ok := tt.ElementType.(tftypes.Object); ok {
			return NestingMap, typeObject(o)
		}
	}
	return NestingNone, nil
}

func typeObject(o tftypes.Object) *Object {
	attrs := map[string]*Attribute{}
	for name, t := range o.AttributeTypes {
		at := &Attribute{Name: name, Optional: true}
		at.Nesting, at.Nested = typeNesting(t)
		attrs[name] = at
	}
	return newObject(attrs)
}
