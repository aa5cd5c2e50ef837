package providerrules

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	dschema "github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kindrules"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/protoschema"
)

// The offline provider: the provider's schema, its resources', data sources' and list
// resources' schemas, built by the same functions as the provider's (kindrules.Kind's
// ResourceSchema and the others, Schema), with no client behind them. Every operation that
// would reach a cluster answers an error. Its GetProviderSchema answer has the provider's
// resources, data sources, list resources and provider block; not its functions, actions or
// resource identities.

// NewServer serves the offline provider over protocol 6, in process. Its GetProviderSchema answer
// is built as the provider's is (protoschema.Build), without the framework's costly conversion.
func NewServer() tfprotov6.ProviderServer {
	return offlineServer{providerserver.NewProtocol6(New())()}
}

type offlineServer struct{ tfprotov6.ProviderServer }

func (s offlineServer) GetProviderSchema(ctx context.Context, req *tfprotov6.GetProviderSchemaRequest) (*tfprotov6.GetProviderSchemaResponse, error) {
	if resp, err := protoschema.Build(ctx, New()); err == nil {
		return resp, nil
	}
	return s.ProviderServer.GetProviderSchema(ctx, req)
}

// New returns the offline provider.
func New() provider.Provider { return offlineProvider{} }

type offlineProvider struct{}

var _ provider.ProviderWithListResources = offlineProvider{}

func (offlineProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = TypeName
}

func (offlineProvider) Schema(_ context.Context, _ provider.SchemaRequest, resp *provider.SchemaResponse) {
	resp.Schema = Schema()
}

func (offlineProvider) Configure(context.Context, provider.ConfigureRequest, *provider.ConfigureResponse) {
}

func (offlineProvider) Resources(context.Context) []func() resource.Resource {
	out := make([]func() resource.Resource, 0, len(Kinds))
	for _, k := range Kinds {
		out = append(out, func() resource.Resource { return offlineResource{k} })
	}
	return out
}

func (offlineProvider) DataSources(context.Context) []func() datasource.DataSource {
	out := make([]func() datasource.DataSource, 0, 2*len(Kinds)+2*len(ReadOnlyKinds))
	for _, k := range Kinds {
		out = append(out, offlineDataSource(k, "", k.DataSourceSchema), offlineDataSource(k, "s", k.NamesDataSourceSchema))
	}
	for _, k := range ReadOnlyKinds {
		out = append(out, offlineDataSource(k, "", k.DataSourceSchema), offlineDataSource(k, "s", k.PluralDataSourceSchema))
	}
	return out
}

func (offlineProvider) ListResources(context.Context) []func() list.ListResource {
	out := make([]func() list.ListResource, 0, len(Kinds))
	for _, k := range Kinds {
		out = append(out, func() list.ListResource { return offlineResource{k} })
	}
	return out
}

// noCluster is the error of every operation that would reach a cluster.
func noCluster(diags *diag.Diagnostics) {
	diags.AddError("No cluster", "The offline provider (package providerrules) serves schemas only; it never reaches a cluster.")
}

// offlineResource is a kind's resource and list resource: its schemas.
type offlineResource struct{ kind *kindrules.Kind }

var (
	_ resource.Resource     = offlineResource{}
	_ list.ListResource     = offlineResource{}
	_ datasource.DataSource = (*dataSource)(nil)
)

func (r offlineResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_" + r.kind.TypeName
}

func (r offlineResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = r.kind.ResourceSchema(ctx)
}

func (r offlineResource) ListResourceConfigSchema(_ context.Context, _ list.ListResourceSchemaRequest, resp *list.ListResourceSchemaResponse) {
	resp.Schema = r.kind.ListResourceSchema()
}

func (offlineResource) Create(_ context.Context, _ resource.CreateRequest, resp *resource.CreateResponse) {
	noCluster(&resp.Diagnostics)
}

func (offlineResource) Read(_ context.Context, _ resource.ReadRequest, resp *resource.ReadResponse) {
	noCluster(&resp.Diagnostics)
}

func (offlineResource) Update(_ context.Context, _ resource.UpdateRequest, resp *resource.UpdateResponse) {
	noCluster(&resp.Diagnostics)
}

func (offlineResource) Delete(_ context.Context, _ resource.DeleteRequest, resp *resource.DeleteResponse) {
	noCluster(&resp.Diagnostics)
}

func (offlineResource) List(_ context.Context, _ list.ListRequest, stream *list.ListResultsStream) {
	var diags diag.Diagnostics
	noCluster(&diags)
	stream.Results = list.ListResultsStreamDiagnostics(diags)
}

// dataSource is one of a kind's data sources: its type name's suffix after the kind's and its
// schema.
type dataSource struct {
	kind   *kindrules.Kind
	suffix string
	schema func() dschema.Schema
}

func offlineDataSource(k *kindrules.Kind, suffix string, schema func() dschema.Schema) func() datasource.DataSource {
	return func() datasource.DataSource { return &dataSource{kind: k, suffix: suffix, schema: schema} }
}

func (d *dataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_" + d.kind.TypeName + d.suffix
}

func (d *dataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = d.schema()
}

func (d *dataSource) Read(_ context.Context, _ datasource.ReadRequest, resp *datasource.ReadResponse) {
	noCluster(&resp.Diagnostics)
}
