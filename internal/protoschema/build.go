// Package protoschema builds a framework provider's GetProviderSchema answer without the
// framework's costly conversion of large schemas: the schemas it can convert (attributes only,
// the types it knows) it converts itself, once, and asks the framework for the rest. Package
// protocol answers the provider's GetProviderSchema with it; the offline provider of package
// providerrules, the TFLint plugin's, too. It imports nothing of the module.
package protoschema

import (
	"context"
	"fmt"
	"sort"
	"sync"

	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	dschema "github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/function"
	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	rschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// HasError reports whether diags hold an error.
func HasError(diags []*tfprotov6.Diagnostic) bool {
	for _, d := range diags {
		if d != nil && d.Severity == tfprotov6.DiagnosticSeverityError {
			return true
		}
	}
	return false
}

// The provider's GetProviderSchema answer, without the framework's conversion of the big
// schemas (issue #28).
//
// terraform-plugin-framework v1.19 answers GetProviderSchema by building every resource and data
// source schema, validating each attribute (fwserver.(*Server).ResourceSchemas and
// DataSourceSchemas, fwschema.ValidateAttributeImplementation) and converting it
// (toproto6.SchemaAttribute). The conversion asks every attribute for its whole Terraform type,
// nested attributes included, and throws the type of a nested attribute away: with the ~9,700
// attributes of the pod templates that is O(attributes x depth), and it was about 60% of a
// provider process's CPU in a schema-only start (profile in scripts/bench/results/fixed-cost/).
//
// So the schemas that convertSchema can convert are converted here, once, in O(attributes),
// and the framework is asked only for the rest: a framework server of the provider in which
// those resources and data sources answer a one-attribute stand-in schema (stubbedProvider).
// Everything else (the provider's own schema, functions, list resources, server capabilities)
// stays the framework's answer. TestSchemaAgreesWithFramework (internal/provider) compares the
// whole answer with the framework's own, attribute by attribute.

// Build is the GetProviderSchema answer of provider p, built as described above; an error when p
// has parts of the protocol it does not carry over (the caller then asks the framework).
func Build(ctx context.Context, p provider.Provider) (*tfprotov6.GetProviderSchemaResponse, error) {
	sp := &stubbedProvider{Provider: p, resources: map[string]*tfprotov6.Schema{}, dataSources: map[string]*tfprotov6.Schema{}}
	if err := sp.supported(); err != nil {
		return nil, err
	}
	resp, err := providerserver.NewProtocol6(sp)().GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil || resp == nil || HasError(resp.Diagnostics) {
		return resp, err
	}
	sp.mu.Lock()
	defer sp.mu.Unlock()
	for name, s := range sp.resources {
		resp.ResourceSchemas[name] = s
	}
	for name, s := range sp.dataSources {
		resp.DataSourceSchemas[name] = s
	}
	return resp, nil
}

// stubbedProvider is the provider with the schemas of its resources and data sources replaced
// by stubSchema where convertSchema converts them; the conversions are kept by type name.
type stubbedProvider struct {
	provider.Provider
	mu          sync.Mutex
	resources   map[string]*tfprotov6.Schema
	dataSources map[string]*tfprotov6.Schema
}

// supported refuses providers with parts of the protocol that stubbedProvider does not carry
// over (its optional interfaces): the caller then uses the framework's whole answer.
func (p *stubbedProvider) supported() error {
	switch p.Provider.(type) {
	case provider.ProviderWithMetaSchema, provider.ProviderWithEphemeralResources, provider.ProviderWithStateStores:
		return fmt.Errorf("protocol: %T has schemas the stubbed provider does not forward", p.Provider)
	}
	return nil
}

func (p *stubbedProvider) ListResources(ctx context.Context) []func() list.ListResource {
	if lp, ok := p.Provider.(provider.ProviderWithListResources); ok {
		return lp.ListResources(ctx)
	}
	return nil
}

func (p *stubbedProvider) Resources(ctx context.Context) []func() resource.Resource {
	fs := p.Provider.Resources(ctx)
	out := make([]func() resource.Resource, len(fs))
	for i, f := range fs {
		out[i] = func() resource.Resource { return &stubResource{Resource: f(), p: p} }
	}
	return out
}

func (p *stubbedProvider) DataSources(ctx context.Context) []func() datasource.DataSource {
	fs := p.Provider.DataSources(ctx)
	out := make([]func() datasource.DataSource, len(fs))
	for i, f := range fs {
		out[i] = func() datasource.DataSource { return &stubDataSource{DataSource: f(), p: p} }
	}
	return out
}

// Functions and Actions forward the provider's own (none when it has none: the framework then
// answers no function and no action, as for a provider without the interface).
func (p *stubbedProvider) Functions(ctx context.Context) []func() function.Function {
	if f, ok := p.Provider.(provider.ProviderWithFunctions); ok {
		return f.Functions(ctx)
	}
	return nil
}

func (p *stubbedProvider) Actions(ctx context.Context) []func() action.Action {
	if a, ok := p.Provider.(provider.ProviderWithActions); ok {
		return a.Actions(ctx)
	}
	return nil
}

var (
	_ provider.ProviderWithListResources = (*stubbedProvider)(nil)
	_ provider.ProviderWithFunctions     = (*stubbedProvider)(nil)
	_ provider.ProviderWithActions       = (*stubbedProvider)(nil)
)

// stubAttributes is the schema the framework sees of a converted resource or data source.
func stubAttributes() map[string]rschema.Attribute {
	return map[string]rschema.Attribute{"id": rschema.StringAttribute{Computed: true}}
}

type stubResource struct {
	resource.Resource
	p *stubbedProvider
}

func (r *stubResource) Schema(ctx context.Context, req resource.SchemaRequest, resp *resource.SchemaResponse) {
	r.Resource.Schema(ctx, req, resp)
	if resp.Diagnostics.HasError() {
		return
	}
	s, ok := convertSchema(ctx, resp.Schema.Version, resp.Schema.Description, resp.Schema.MarkdownDescription,
		resp.Schema.DeprecationMessage, len(resp.Schema.Blocks), attributesOf(resp.Schema.Attributes))
	if !ok {
		return // the framework converts it
	}
	var meta resource.MetadataResponse
	r.Metadata(ctx, resource.MetadataRequest{ProviderTypeName: providerTypeName(ctx, r.p)}, &meta)
	r.p.mu.Lock()
	r.p.resources[meta.TypeName] = s
	r.p.mu.Unlock()
	resp.Schema = rschema.Schema{Attributes: stubAttributes()}
}

type stubDataSource struct {
	datasource.DataSource
	p *stubbedProvider
}

func (d *stubDataSource) Schema(ctx context.Context, req datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	d.DataSource.Schema(ctx, req, resp)
	if resp.Diagnostics.HasError() {
		return
	}
	s, ok := convertSchema(ctx, 0, resp.Schema.Description, resp.Schema.MarkdownDescription,
		resp.Schema.DeprecationMessage, len(resp.Schema.Blocks), attributesOf(resp.Schema.Attributes))
	if !ok {
		return
	}
	var meta datasource.MetadataResponse
	d.Metadata(ctx, datasource.MetadataRequest{ProviderTypeName: providerTypeName(ctx, d.p)}, &meta)
	d.p.mu.Lock()
	d.p.dataSources[meta.TypeName] = s
	d.p.mu.Unlock()
	resp.Schema = dschema.Schema{Attributes: map[string]dschema.Attribute{"id": dschema.StringAttribute{Computed: true}}}
}

func providerTypeName(ctx context.Context, p *stubbedProvider) string {
	var resp provider.MetadataResponse
	p.Metadata(ctx, provider.MetadataRequest{}, &resp)
	return resp.TypeName
}

// attribute is what convertSchema reads of a framework schema attribute (the methods that
// resource and data source attributes share).
type attribute interface {
	IsRequired() bool
	IsOptional() bool
	IsComputed() bool
	IsSensitive() bool
	IsWriteOnly() bool
	GetDescription() string
	GetMarkdownDescription() string
	GetDeprecationMessage() string
}

func attributesOf[A attribute](m map[string]A) map[string]attribute {
	out := make(map[string]attribute, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// convertSchema is what toproto6.Schema (terraform-plugin-framework v1.19,
// internal/toproto6/schema.go) answers for a schema without blocks; ok is false for what it
// does not know (blocks, an attribute type it does not handle), left to the framework.
func convertSchema(ctx context.Context, version int64, desc, markdown, deprecation string, blocks int, attrs map[string]attribute) (*tfprotov6.Schema, bool) {
	if blocks > 0 {
		return nil, false
	}
	list, ok := convertAttributes(ctx, attrs)
	if !ok {
		return nil, false
	}
	block := &tfprotov6.SchemaBlock{Attributes: list, Deprecated: deprecation != "", DeprecationMessage: deprecation}
	block.Description, block.DescriptionKind = description(desc, markdown)
	return &tfprotov6.Schema{Version: version, Block: block}, true
}

// description: the markdown description wins over the plain one, as in toproto6.
func description(plain, markdown string) (string, tfprotov6.StringKind) {
	switch {
	case markdown != "":
		return markdown, tfprotov6.StringKindMarkdown
	case plain != "":
		return plain, tfprotov6.StringKindPlain
	}
	return "", tfprotov6.StringKindPlain
}

func convertAttributes(ctx context.Context, attrs map[string]attribute) ([]*tfprotov6.SchemaAttribute, bool) {
	var out []*tfprotov6.SchemaAttribute
	for name, a := range attrs {
		pa, ok := convertAttribute(ctx, name, a)
		if !ok {
			return nil, false
		}
		out = append(out, pa)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, true
}

// convertAttribute is toproto6.SchemaAttribute without the Terraform type of nested attributes,
// which the protocol leaves out (the framework computes it and then drops it).
func convertAttribute(ctx context.Context, name string, a attribute) (*tfprotov6.SchemaAttribute, bool) {
	if !a.IsRequired() && !a.IsOptional() && !a.IsComputed() {
		return nil, false // the framework reports it
	}
	pa := &tfprotov6.SchemaAttribute{Name: name, Required: a.IsRequired(), Optional: a.IsOptional(), Computed: a.IsComputed(),
		Sensitive: a.IsSensitive(), WriteOnly: a.IsWriteOnly()}
	if m := a.GetDeprecationMessage(); m != "" {
		pa.Deprecated, pa.DeprecationMessage = true, m
	}
	if d, kind := description(a.GetDescription(), a.GetMarkdownDescription()); d != "" {
		pa.Description, pa.DescriptionKind = d, kind
	}
	var nesting tfprotov6.SchemaObjectNestingMode
	var nested map[string]attribute
	switch v := a.(type) {
	case rschema.SingleNestedAttribute:
		nesting, nested = tfprotov6.SchemaObjectNestingModeSingle, attributesOf(v.Attributes)
	case rschema.ListNestedAttribute:
		nesting, nested = tfprotov6.SchemaObjectNestingModeList, attributesOf(v.NestedObject.Attributes)
	case rschema.MapNestedAttribute:
		nesting, nested = tfprotov6.SchemaObjectNestingModeMap, attributesOf(v.NestedObject.Attributes)
	case rschema.SetNestedAttribute:
		nesting, nested = tfprotov6.SchemaObjectNestingModeSet, attributesOf(v.NestedObject.Attributes)
	case dschema.SingleNestedAttribute:
		nesting, nested = tfprotov6.SchemaObjectNestingModeSingle, attributesOf(v.Attributes)
	case dschema.ListNestedAttribute:
		nesting, nested = tfprotov6.SchemaObjectNestingModeList, attributesOf(v.NestedObject.Attributes)
	case dschema.MapNestedAttribute:
		nesting, nested = tfprotov6.SchemaObjectNestingModeMap, attributesOf(v.NestedObject.Attributes)
	case dschema.SetNestedAttribute:
		nesting, nested = tfprotov6.SchemaObjectNestingModeSet, attributesOf(v.NestedObject.Attributes)
	default:
		typ, ok := primitiveType(ctx, a)
		if !ok {
			return nil, false
		}
		pa.Type = typ
		return pa, true
	}
	list, ok := convertAttributes(ctx, nested)
	if !ok {
		return nil, false
	}
	pa.NestedType = &tfprotov6.SchemaObject{Nesting: nesting, Attributes: list}
	return pa, true
}

// primitiveType is the Terraform type of a non-nested attribute of the kinds the provider's
// schemas use (whose GetType is cheap); false for any other attribute.
func primitiveType(ctx context.Context, a attribute) (tftypes.Type, bool) {
	switch v := a.(type) {
	case rschema.StringAttribute, dschema.StringAttribute, rschema.BoolAttribute, dschema.BoolAttribute,
		rschema.Int64Attribute, dschema.Int64Attribute, rschema.Float64Attribute, dschema.Float64Attribute,
		rschema.NumberAttribute, dschema.NumberAttribute, rschema.ListAttribute, dschema.ListAttribute,
		rschema.MapAttribute, dschema.MapAttribute, rschema.SetAttribute, dschema.SetAttribute,
		rschema.ObjectAttribute, dschema.ObjectAttribute:
		if typed, ok := v.(interface{ GetType() attr.Type }); ok {
			return typed.GetType().TerraformType(ctx), true
		}
	}
	return nil, false
}
