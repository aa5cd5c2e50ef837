package protocol

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

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
// answer it builds itself (schemaBuilder: the same answer without the framework's costly
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

// SchemaCache shares one GetProviderSchema response between the servers of a process that serve
// the same provider. Terraform asks every provider server it starts for the whole schema, and
// building the answer (the framework's conversion of about 10,000 attributes) costs about 90 ms
// of CPU; the acceptance tests start a server in the test process for every CLI command they
// run. The framework builds each resource's schema on its own when another RPC needs it, so
// the servers that skip the conversion still serve everything. The zero value is ready to use.
type SchemaCache struct {
	mu   sync.Mutex
	resp *tfprotov6.GetProviderSchemaResponse
}

// get returns the cached response, or builds it with build and keeps it if it has no error.
func (c *SchemaCache) get(build func() (*tfprotov6.GetProviderSchemaResponse, error)) (*tfprotov6.GetProviderSchemaResponse, error) {
	if c == nil {
		return build()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.resp != nil {
		return c.resp, nil
	}
	resp, err := build()
	if err == nil && resp != nil && !hasError(resp.Diagnostics) {
		c.resp = resp
	}
	return resp, err
}

func hasError(diags []*tfprotov6.Diagnostic) bool {
	for _, d := range diags {
		if d != nil && d.Severity == tfprotov6.DiagnosticSeverityError {
			return true
		}
	}
	return false
}

// GetProviderSchema and GetMetadata announce GenerateResourceConfig, which terraform-plugin-framework
// v1.19 implements but does not announce yet (its toproto6.ServerCapabilities drops the flag).
func (s *server) GetProviderSchema(ctx context.Context, req *tfprotov6.GetProviderSchemaRequest) (*tfprotov6.GetProviderSchemaResponse, error) {
	return s.schemas.get(func() (*tfprotov6.GetProviderSchemaResponse, error) {
		resp, err := s.buildSchema(ctx, req)
		if resp != nil && resp.ServerCapabilities != nil {
			resp.ServerCapabilities.GenerateResourceConfig = true
		}
		return resp, err
	})
}

// buildSchema is the GetProviderSchema answer: schemaBuilder's when the server has the provider
// and the builder supports it, the framework's otherwise.
func (s *server) buildSchema(ctx context.Context, req *tfprotov6.GetProviderSchemaRequest) (*tfprotov6.GetProviderSchemaResponse, error) {
	if s.provider != nil {
		if resp, err := (schemaBuilder{s.provider}).build(ctx); err == nil {
			return resp, nil
		}
	}
	return s.ProviderServer.GetProviderSchema(ctx, req)
}

func (s *server) GetMetadata(ctx context.Context, req *tfprotov6.GetMetadataRequest) (*tfprotov6.GetMetadataResponse, error) {
	resp, err := s.ProviderServer.GetMetadata(ctx, req)
	if resp != nil && resp.ServerCapabilities != nil {
		resp.ServerCapabilities.GenerateResourceConfig = true
	}
	return resp, err
}

// GenerateResourceConfig (Terraform 1.14+, `terraform plan -generate-config-out` after an import
// block) writes a resource block from the state: the framework's answer (the state without
// computed-only attributes) would spell out every planned default, including fields the installed
// CRD does not have. The framework still turns the pruned state into configuration.
func (s *server) GenerateResourceConfig(ctx context.Context, req *tfprotov6.GenerateResourceConfigRequest) (*tfprotov6.GenerateResourceConfigResponse, error) {
	f := s.lookup(ctx, req.TypeName)
	if f == nil || req.State == nil {
		return s.ProviderServer.GenerateResourceConfig(ctx, req)
	}
	st, err := req.State.Unmarshal(f.typ)
	if err != nil {
		return s.ProviderServer.GenerateResourceConfig(ctx, req)
	}
	dv, err := tfprotov6.NewDynamicValue(f.typ, f.res.GeneratedConfigState(st))
	if err != nil {
		return s.ProviderServer.GenerateResourceConfig(ctx, req)
	}
	return s.ProviderServer.GenerateResourceConfig(ctx, &tfprotov6.GenerateResourceConfigRequest{TypeName: req.TypeName, State: &dv})
}

// The list resource RPCs are an optional interface of the protocol (tf6server looks for it
// with a type assertion), which embedding ProviderServer does not carry over: forward them.
// (Deprecated only in favour of moving the methods into ProviderServer, which v0.31 has not done.)
var _ tfprotov6.ProviderServerWithListResource = (*server)(nil) //nolint:staticcheck // see above

// listServer is the framework server's list resource side.
func (s *server) listServer() (tfprotov6.ProviderServerWithListResource, error) { //nolint:staticcheck // see above
	ls, ok := s.ProviderServer.(tfprotov6.ProviderServerWithListResource) //nolint:staticcheck // see above
	if !ok {
		return nil, errors.New("the provider server has no list resources")
	}
	return ls, nil
}

func (s *server) ValidateListResourceConfig(ctx context.Context, req *tfprotov6.ValidateListResourceConfigRequest) (*tfprotov6.ValidateListResourceConfigResponse, error) {
	ls, err := s.listServer()
	if err != nil {
		return nil, err
	}
	return ls.ValidateListResourceConfig(ctx, req)
}

func (s *server) ListResource(ctx context.Context, req *tfprotov6.ListResourceRequest) (*tfprotov6.ListResourceServerStream, error) {
	ls, err := s.listServer()
	if err != nil {
		return nil, err
	}
	return ls.ListResource(ctx, req)
}

// The action RPCs are another optional interface (Terraform 1.14+): forward them as well.
var _ tfprotov6.ProviderServerWithActions = (*server)(nil) //nolint:staticcheck // see above

// actionServer is the framework server's action side.
func (s *server) actionServer() (tfprotov6.ProviderServerWithActions, error) { //nolint:staticcheck // see above
	as, ok := s.ProviderServer.(tfprotov6.ProviderServerWithActions) //nolint:staticcheck // see above
	if !ok {
		return nil, errors.New("the provider server has no actions")
	}
	return as, nil
}

func (s *server) ValidateActionConfig(ctx context.Context, req *tfprotov6.ValidateActionConfigRequest) (*tfprotov6.ValidateActionConfigResponse, error) {
	as, err := s.actionServer()
	if err != nil {
		return nil, err
	}
	return as.ValidateActionConfig(ctx, req)
}

func (s *server) PlanAction(ctx context.Context, req *tfprotov6.PlanActionRequest) (*tfprotov6.PlanActionResponse, error) {
	as, err := s.actionServer()
	if err != nil {
		return nil, err
	}
	return as.PlanAction(ctx, req)
}

func (s *server) InvokeAction(ctx context.Context, req *tfprotov6.InvokeActionRequest) (*tfprotov6.InvokeActionServerStream, error) {
	as, err := s.actionServer()
	if err != nil {
		return nil, err
	}
	return as.InvokeAction(ctx, req)
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
	f.defaults = map[string]tftypes.Value{kube.AttrForceConflicts: tftypes.NewValue(tftypes.Bool, kube.DefaultForceConflicts)}
	for k, v := range f.kind.ExtraDefaults {
		f.defaults[k] = v
	}
	f.computed = map[string]bool{kube.AttrID: true}
}

func (s *server) lookup(ctx context.Context, typeName string) *kindResource {
	f, ok := s.resources[typeName]
	if !ok {
		return nil
	}
	f.init(ctx)
	return f
}

func (s *server) ValidateResourceConfig(ctx context.Context, req *tfprotov6.ValidateResourceConfigRequest) (*tfprotov6.ValidateResourceConfigResponse, error) {
	f := s.lookup(ctx, req.TypeName)
	if f == nil {
		return s.ProviderServer.ValidateResourceConfig(ctx, req)
	}
	resp := &tfprotov6.ValidateResourceConfigResponse{}
	config, err := req.Config.Unmarshal(f.typ)
	if err != nil {
		resp.Diagnostics = append(resp.Diagnostics, errorDiag("Cannot decode the configuration", err.Error()))
		return resp, nil
	}
	diags := f.res.ValidateRaw(config)
	diags.Append(validateTimeouts(config)...)
	resp.Diagnostics = toProtoDiags(diags)
	return resp, nil
}

func (s *server) PlanResourceChange(ctx context.Context, req *tfprotov6.PlanResourceChangeRequest) (*tfprotov6.PlanResourceChangeResponse, error) {
	f := s.lookup(ctx, req.TypeName)
	if f == nil {
		return s.ProviderServer.PlanResourceChange(ctx, req)
	}
	resp := &tfprotov6.PlanResourceChangeResponse{PlannedPrivate: req.PriorPrivate}
	decode := func(dv *tfprotov6.DynamicValue) (tftypes.Value, bool) {
		if dv == nil {
			return tftypes.NewValue(f.typ, nil), true
		}
		v, err := dv.Unmarshal(f.typ)
		if err != nil {
			resp.Diagnostics = append(resp.Diagnostics, errorDiag("Cannot decode the plan request", err.Error()))
			return v, false
		}
		return v, true
	}
	// Decoding a value of a ~2,300-attribute schema is the provider's largest cost, and the
	// proposed state often has the same encoding as the configuration (a create) or the prior
	// state (no change): decode such a value once.
	config, ok1 := decode(req.Config)
	proposed, ok2 := config, ok1
	if !sameEncoding(req.ProposedNewState, req.Config) {
		proposed, ok2 = decode(req.ProposedNewState)
	}
	prior, ok3 := proposed, ok2
	if !sameEncoding(req.PriorState, req.ProposedNewState) {
		prior, ok3 = decode(req.PriorState)
	}
	if !ok1 || !ok2 || !ok3 {
		return resp, nil
	}
	planned := proposed
	var replace path.Paths
	var diags diag.Diagnostics
	if !proposed.IsNull() {
		planned = f.applyExtraDefaults(config, planned)
		if !planned.Equal(prior) {
			planned = f.markComputedUnknown(config, planned)
		}
		if prior.IsKnown() && !prior.IsNull() {
			planned = keepPriorID(planned, prior)
		}
		planned, replace, diags = f.res.PlanChange(config, planned, prior, req.PriorPrivate)
	}
	resp.Diagnostics = toProtoDiags(diags)
	if diags.HasError() {
		return resp, nil
	}
	dv, err := tfprotov6.NewDynamicValue(f.typ, planned)
	if err != nil {
		resp.Diagnostics = append(resp.Diagnostics, errorDiag("Cannot encode the plan", err.Error()))
		return resp, nil
	}
	resp.PlannedState = &dv
	// As the framework: the planned identity is the prior one (null for a create); the name
	// and namespace that make it require replacement when they change.
	resp.PlannedIdentity = req.PriorIdentity
	if resp.PlannedIdentity == nil {
		resp.PlannedIdentity = protoIdentity(f.res.IdentityOf(tftypes.NewValue(f.typ, nil)))
	}
	for _, p := range replace {
		resp.RequiresReplace = append(resp.RequiresReplace, toTFPath(p))
	}
	return resp, nil
}

// nullState is the encoding of a removed object's state.
func nullState(typ tftypes.Type) *tfprotov6.DynamicValue {
	dv, _ := tfprotov6.NewDynamicValue(typ, tftypes.NewValue(typ, nil))
	return &dv
}

// sameEncoding reports whether two msgpack-encoded values are byte for byte the same (Terraform
// encodes deterministically).
func sameEncoding(a, b *tfprotov6.DynamicValue) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.JSON == nil && b.JSON == nil && len(a.MsgPack) > 0 && bytes.Equal(a.MsgPack, b.MsgPack)
}

// applyExtraDefaults sets the defaults of the extra attributes the configuration leaves null.
func (f *kindResource) applyExtraDefaults(config, planned tftypes.Value) tftypes.Value {
	cattrs := kube.ObjectAttrs(config)
	attrs := kube.ObjectAttrs(planned)
	for name, def := range f.defaults {
		if c, ok := cattrs[name]; ok && c.IsNull() {
			attrs[name] = def
		}
	}
	return tftypes.NewValue(planned.Type(), attrs)
}

// markComputedUnknown marks computed attributes the configuration leaves null as unknown, as
// the framework does when the resource changes: the server (or the plan modification) decides.
func (f *kindResource) markComputedUnknown(config, planned tftypes.Value) tftypes.Value {
	planned = f.res.MarkComputedUnknown(config, planned)
	cattrs := kube.ObjectAttrs(config)
	attrs := kube.ObjectAttrs(planned)
	for name := range f.computed {
		if c, ok := cattrs[name]; ok && c.IsNull() {
			attrs[name] = tftypes.NewValue(attrs[name].Type(), tftypes.UnknownValue)
		}
	}
	return tftypes.NewValue(planned.Type(), attrs)
}

// keepPriorID keeps the identifier known across updates (the framework's UseStateForUnknown).
func keepPriorID(planned, prior tftypes.Value) tftypes.Value {
	attrs := kube.ObjectAttrs(planned)
	if id, ok := attrs[kube.AttrID]; ok && !id.IsKnown() {
		attrs[kube.AttrID] = kube.ObjectAttrs(prior)[kube.AttrID]
	}
	return tftypes.NewValue(planned.Type(), attrs)
}

// validateTimeouts checks the durations of the timeouts attribute, as the timeouts package's
// validators would.
func validateTimeouts(config tftypes.Value) diag.Diagnostics {
	var diags diag.Diagnostics
	t, ok := kube.ObjectAttrs(config)[kube.AttrTimeouts]
	if !ok || !t.IsKnown() || t.IsNull() {
		return nil
	}
	for op, v := range kube.ObjectAttrs(t) {
		s, ok := kube.KnownString(v)
		if !ok {
			continue
		}
		d, err := time.ParseDuration(s)
		switch {
		case err != nil:
			diags.AddAttributeError(path.Root(kube.AttrTimeouts).AtName(op), "Invalid duration",
				"timeouts."+op+" must be a duration such as \"30s\", \"10m\" or \"2h\": "+err.Error())
		case d <= 0:
			// A zero or negative timeout would end the operation before its first request.
			diags.AddAttributeError(path.Root(kube.AttrTimeouts).AtName(op), "Invalid duration",
				fmt.Sprintf("timeouts.%s must be positive, such as \"30s\", \"10m\" or \"2h\"; got %q", op, s))
		}
	}
	return diags
}

// protoIdentity encodes an identity for a protocol response; nil when it cannot be encoded.
func protoIdentity(v tftypes.Value) *tfprotov6.ResourceIdentityData {
	dv, err := tfprotov6.NewDynamicValue(v.Type(), v)
	if err != nil {
		return nil
	}
	return &tfprotov6.ResourceIdentityData{IdentityData: &dv}
}

func errorDiag(summary, detail string) *tfprotov6.Diagnostic {
	return &tfprotov6.Diagnostic{Severity: tfprotov6.DiagnosticSeverityError, Summary: summary, Detail: detail}
}

func toProtoDiags(diags diag.Diagnostics) []*tfprotov6.Diagnostic {
	var out []*tfprotov6.Diagnostic
	for _, d := range diags {
		pd := &tfprotov6.Diagnostic{Summary: d.Summary(), Detail: d.Detail(), Severity: tfprotov6.DiagnosticSeverityError}
		if d.Severity() == diag.SeverityWarning {
			pd.Severity = tfprotov6.DiagnosticSeverityWarning
		}
		if wp, ok := d.(diag.DiagnosticWithPath); ok {
			pd.Attribute = toTFPath(wp.Path())
		}
		out = append(out, pd)
	}
	return out
}

func toTFPath(p path.Path) *tftypes.AttributePath {
	tp := tftypes.NewAttributePath()
	for _, step := range p.Steps() {
		switch s := step.(type) {
		case path.PathStepAttributeName:
			tp = tp.WithAttributeName(string(s))
		case path.PathStepElementKeyInt:
			tp = tp.WithElementKeyInt(int(s))
		case path.PathStepElementKeyString:
			tp = tp.WithElementKeyString(string(s))
		}
	}
	return tp
}

// configured returns a resource bound to the provider's client.
func (s *server) configured(f *kindResource) *kube.Resource {
	return kube.ConfiguredResource(f.kind, s.data())
}

func (s *server) UpgradeResourceState(ctx context.Context, req *tfprotov6.UpgradeResourceStateRequest) (*tfprotov6.UpgradeResourceStateResponse, error) {
	f := s.lookup(ctx, req.TypeName)
	if f == nil || req.Version != 0 || req.RawState == nil || req.RawState.JSON == nil {
		return s.ProviderServer.UpgradeResourceState(ctx, req)
	}
	// Schema version 0 is the only one: the stored state only needs decoding, tolerating
	// attributes an older build had.
	resp := &tfprotov6.UpgradeResourceStateResponse{}
	if mp, err := stateToMsgPack(f.typ, req.RawState.JSON); err == nil {
		resp.UpgradedState = &tfprotov6.DynamicValue{MsgPack: mp}
		return resp, nil
	}
	v, err := req.RawState.UnmarshalWithOpts(f.typ, tfprotov6.UnmarshalOpts{ValueFromJSONOpts: tftypes.ValueFromJSONOpts{IgnoreUndefinedAttributes: true}})
	if err != nil {
		return s.ProviderServer.UpgradeResourceState(ctx, req)
	}
	dv, err := tfprotov6.NewDynamicValue(f.typ, v)
	if err != nil {
		resp.Diagnostics = append(resp.Diagnostics, errorDiag("Cannot encode the state", err.Error()))
		return resp, nil
	}
	resp.UpgradedState = &dv
	return resp, nil
}

// importBeforeReadKey is the framework's private-state marker of a state that
// ImportResourceState has just returned; the ReadResource that follows clears it
// (terraform-plugin-framework v1.19.0 internal/privatestate ImportBeforeReadKey and
// internal/fwserver/server_readresource.go), and so does this server's.
const importBeforeReadKey = ".import_before_read"

func (s *server) ReadResource(ctx context.Context, req *tfprotov6.ReadResourceRequest) (*tfprotov6.ReadResourceResponse, error) {
	f := s.lookup(ctx, req.TypeName)
	if f == nil {
		return s.ProviderServer.ReadResource(ctx, req)
	}
	resp := &tfprotov6.ReadResourceResponse{Private: kube.WithoutPrivateKey(req.Private, importBeforeReadKey), NewState: req.CurrentState}
	r := s.configured(f)
	// The state records the resourceVersion of the object it was computed from: when the
	// server still holds that version, nothing changed and the state stands as it is, without
	// decoding and re-encoding it (unless the state also records other objects).
	var fetched *unstructured.Unstructured
	if req.CurrentState != nil && req.CurrentState.JSON == nil {
		if namespace, name, rv, ok := stateMetadata(req.CurrentState.MsgPack); ok && rv != "" {
			u, removed, diags := r.Fetch(ctx, namespace, name)
			if diags.HasError() {
				resp.Diagnostics = toProtoDiags(diags)
				return resp, nil
			}
			if removed {
				resp.NewState = nullState(f.typ)
				resp.NewIdentity = req.CurrentIdentity // as the framework answers for a removed resource
				return resp, nil
			}
			if u.GetResourceVersion() == rv && !r.ReadsOtherObjects() {
				resp.NewIdentity = protoIdentity(f.res.IdentityValue(namespace, name))
				return resp, nil
			}
			fetched = u
		}
	}
	current, err := req.CurrentState.Unmarshal(f.typ)
	if err != nil {
		resp.Diagnostics = append(resp.Diagnostics, errorDiag("Cannot decode the state", err.Error()))
		return resp, nil
	}
	if current.IsNull() {
		return resp, nil
	}
	var newState tftypes.Value
	var removed bool
	var private []byte
	var diags diag.Diagnostics
	if fetched != nil {
		newState, private, diags = r.ReadFrom(current, r.AfterRead(ctx, fetched), false, resp.Private)
	} else {
		newState, removed, private, diags = r.ReadRaw(ctx, current, resp.Private)
	}
	resp.Diagnostics = toProtoDiags(diags)
	if diags.HasError() {
		return resp, nil
	}
	resp.Private = private
	if removed {
		newState = tftypes.NewValue(f.typ, nil)
		resp.NewIdentity = req.CurrentIdentity
	} else {
		resp.NewIdentity = protoIdentity(f.res.IdentityOf(newState))
	}
	dv, err := tfprotov6.NewDynamicValue(f.typ, newState)
	if err != nil {
		resp.Diagnostics = append(resp.Diagnostics, errorDiag("Cannot encode the state", err.Error()))
		return resp, nil
	}
	resp.NewState = &dv
	return resp, nil
}

func (s *server) ApplyResourceChange(ctx context.Context, req *tfprotov6.ApplyResourceChangeRequest) (*tfprotov6.ApplyResourceChangeResponse, error) {
	f := s.lookup(ctx, req.TypeName)
	if f == nil {
		return s.ProviderServer.ApplyResourceChange(ctx, req)
	}
	resp := &tfprotov6.ApplyResourceChangeResponse{Private: req.PlannedPrivate}
	prior, err1 := req.PriorState.Unmarshal(f.typ)
	planned, err2 := req.PlannedState.Unmarshal(f.typ)
	var config tftypes.Value
	var err3 error
	if req.Config != nil {
		config, err3 = req.Config.Unmarshal(f.typ)
	}
	if err1 != nil || err2 != nil || err3 != nil {
		resp.Diagnostics = append(resp.Diagnostics, errorDiag("Cannot decode the apply request", errors.Join(err1, err2, err3).Error()))
		return resp, nil
	}
	r := s.configured(f)
	var diags diag.Diagnostics
	newState := prior // on failure the object is as it was
	switch {
	case planned.IsNull():
		diags = r.DeleteRaw(ctx, prior, kube.UnconfirmedCreate(req.PlannedPrivate))
		if !diags.HasError() {
			newState = planned
			resp.Private = nil // nothing left to remember, as the framework answers
		}
	default:
		state := tftypes.Value{}
		resp.Private = r.ApplyRaw(ctx, planned, config, prior, req.PlannedPrivate, &state, &diags)
		if state.Type() != nil {
			newState = state // the object exists (even if waiting failed): record it
		}
	}
	resp.Diagnostics = toProtoDiags(diags)
	resp.NewIdentity = protoIdentity(f.res.IdentityOf(newState)) // null once deleted, as the framework answers
	dv, err := tfprotov6.NewDynamicValue(f.typ, newState)
	if err != nil {
		resp.Diagnostics = append(resp.Diagnostics, errorDiag("Cannot encode the state", err.Error()))
		return resp, nil
	}
	resp.NewState = &dv
	return resp, nil
}
