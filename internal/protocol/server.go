package protocol

import (
	"context"
	"sync"

	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kindrules"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kube"
)

// NewServer wraps a framework provider server (inner) and serves the resource RPCs of the
// kinds' resources itself; data returns the configured provider data, and providerTypeName
// prefixes the kinds' type names as in the framework ("kubeinfer" gives
// "kubeinfer_leaderworkerset").
// schemas, if not nil, shares the GetProviderSchema response with the other servers built with it.
func NewServer(inner tfprotov6.ProviderServer, data func() *kube.ProviderData, providerTypeName string, schemas *SchemaCache, kinds ...*kube.Kind) tfprotov6.ProviderServer {
	return newServer(inner, nil, data, providerTypeName, schemas, kinds)
}

// NewProviderServer is NewServer over the framework's server of p, whose GetProviderSchema
// answer it builds itself (protoschema.Build: the same answer without the framework's costly
// conversion of the kinds' schemas).
func NewProviderServer(p provider.Provider, data func() *kube.ProviderData, providerTypeName string, schemas *SchemaCache, kinds ...*kube.Kind) tfprotov6.ProviderServer {
	return newServer(providerserver.NewProtocol6(p)(), p, data, providerTypeName, schemas, kinds)
}

func newServer(inner tfprotov6.ProviderServer, p provider.Provider, data func() *kube.ProviderData, providerTypeName string, schemas *SchemaCache, kinds []*kube.Kind) *server {
	s := &server{ProviderServer: inner, provider: p, data: data, schemas: schemas, resources: make(map[string]*kindResource, len(kinds))}
	for _, k := range kinds {
		s.resources[providerTypeName+"_"+k.TypeName] = &kindResource{kind: k, res: kube.ConfiguredResource(k, nil)}
	}
	return s
}

// server is the framework's server with the resource RPCs of the kinds' resources replaced.
type server struct {
	tfprotov6.ProviderServer
	provider  provider.Provider // builds the schema answer when not nil (NewProviderServer)
	data      func() *kube.ProviderData
	schemas   *SchemaCache
	resources map[string]*kindResource
}

// kindResource is one kind's resource and what its schema gives the plan.
type kindResource struct {
	kind     *kube.Kind
	res      *kube.Resource // not configured: for the offline methods
	typ      tftypes.Object
	defaults map[string]tftypes.Value // defaults of the extra attributes
	computed map[string]bool          // extra attributes that are computed
	once     sync.Once
}

// init reads the resource's schema once: its type and the defaults of its extra attributes.
func (f *kindResource) init(ctx context.Context) {
	f.once.Do(func() { f.load(ctx) })
}

func (f *kindResource) load(ctx context.Context) {
	var resp resource.SchemaResponse
	f.res.Schema(ctx, resource.SchemaRequest{}, &resp)
	typ, ok := resp.Schema.Type().TerraformType(ctx).(tftypes.Object)
	if !ok {
		panic("protocol: a resource schema is not an object")
	}
	f.typ = typ
	f.defaults = map[string]tftypes.Value{kindrules.AttrForceConflicts: tftypes.NewValue(tftypes.Bool, kindrules.DefaultForceConflicts)}
	for k, v := range f.kind.ExtraDefaults {
		f.defaults[k] = v
	}
	f.computed = map[string]bool{kindrules.AttrID: true}
}

func (s *server) lookup(ctx context.Context, typeName string) *kindResource {
	f, ok := s.resources[typeName]
	if !ok {
		return nil
	}
	f.init(ctx)
	return f
}

// configured returns a resource bound to the provider's client.
func (s *server) configured(f *kindResource) *kube.Resource {
	return kube.ConfiguredResource(f.kind, s.data())
}
