// Package provider is the kubeinfer Terraform provider: its configuration (the KUBE_*
// attributes) and Configure, the one list of kinds from which its resources, data sources, list
// resources and the fast path (package protocol) are built, its functions and actions, and the
// GetProviderSchema answer encoded at build time (schema_answer.binpb) that the binary serves.
package provider

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/function"
	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/disaggregatedset"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/flowschema"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kube"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kubeclient"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/leaderworkerset"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/prioritylevelconfiguration"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/protocol"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/providerrules"
)

// TypeName is the provider type name used in resource type prefixes.
const TypeName = providerrules.TypeName

var (
	_ provider.Provider              = (*kubeinferProvider)(nil)
	_ provider.ProviderWithFunctions = (*kubeinferProvider)(nil)
	_ provider.ProviderWithActions   = (*kubeinferProvider)(nil)
)

type kubeinferProvider struct {
	version string
	// data is what Configure produced last; the fast path of the kinds' resources reads it.
	data atomic.Pointer[kube.ProviderData]
}

// ProviderData returns the configured client data, or nil before Configure.
func (p *kubeinferProvider) ProviderData() *kube.ProviderData { return p.data.Load() }

// NewServer serves the provider over protocol 6: the Kubernetes kinds' resources on the fast
// path of package protocol, everything else on the framework. The servers of one process share
// their schema response.
func NewServer(version string) func() tfprotov6.ProviderServer {
	return func() tfprotov6.ProviderServer {
		p := &kubeinferProvider{version: version}
		return protocol.NewProviderServer(p, p.ProviderData, TypeName, &schemas, kinds...)
	}
}

// schemas is the schema response of the provider's servers in this process. The version is not
// part of the schema, so servers of different versions may share it.
var schemas protocol.SchemaCache

// New returns a constructor for the provider, as expected by providerserver.

func New(version string) func() provider.Provider {
	return func() provider.Provider {
		return &kubeinferProvider{version: version}
	}
}

// ProviderModel is the provider configuration.
type ProviderModel struct {
	Host                  types.String `tfsdk:"host"`
	ConfigPath            types.String `tfsdk:"config_path"`
	ConfigPaths           types.List   `tfsdk:"config_paths"`
	ConfigContext         types.String `tfsdk:"config_context"`
	ConfigContextAuthInfo types.String `tfsdk:"config_context_auth_info"`
	ConfigContextCluster  types.String `tfsdk:"config_context_cluster"`
	Token                 types.String `tfsdk:"token"`
	ClientCertificate     types.String `tfsdk:"client_certificate"`
	ClientKey             types.String `tfsdk:"client_key"`
	ClusterCACertificate  types.String `tfsdk:"cluster_ca_certificate"`
	Insecure              types.Bool   `tfsdk:"insecure"`
	TLSServerName         types.String `tfsdk:"tls_server_name"`
	ProxyURL              types.String `tfsdk:"proxy_url"`
	Exec                  types.Object `tfsdk:"exec"`
	FieldManager          types.String `tfsdk:"field_manager"`
	PlacementPreview      types.String `tfsdk:"placement_preview"`
}

// ExecModel is the value of the exec block.
type ExecModel struct {
	APIVersion types.String `tfsdk:"api_version"`
	Command    types.String `tfsdk:"command"`
	Args       types.List   `tfsdk:"args"`
	Env        types.Map    `tfsdk:"env"`
}

// ExecAttrTypes are the attribute types of the exec block.
var ExecAttrTypes = map[string]attr.Type{
	"api_version": types.StringType,
	"command":     types.StringType,
	"args":        types.ListType{ElemType: types.StringType},
	"env":         types.MapType{ElemType: types.StringType},
}

func (p *kubeinferProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = TypeName
	resp.Version = p.version
}

func (p *kubeinferProvider) Schema(_ context.Context, _ provider.SchemaRequest, resp *provider.SchemaResponse) {
	resp.Schema = providerrules.Schema()
}

func (p *kubeinferProvider) Configure(ctx context.Context, req provider.ConfigureRequest, resp *provider.ConfigureResponse) {
	var model ProviderModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &model)...)
	if resp.Diagnostics.HasError() {
		return
	}

	data := &kube.ProviderData{FieldManager: providerrules.DefaultFieldManager}
	if v := model.FieldManager.ValueString(); v != "" {
		data.FieldManager = v
	}
	data.PlacementPreview = kube.PlacementOff
	if v := model.PlacementPreview.ValueString(); v != "" {
		data.PlacementPreview = v
	}
	if unknown := unknownAttributes(req.Config.Raw); len(unknown) > 0 {
		// Typically the cluster is created in the same apply. Planning new
		// resources needs no API access, so do not fail here: only calls
		// that need the cluster report the problem.
		data.Client = kubeclient.NewUnknownConfigClient("unknown: " + strings.Join(unknown, ", "))
	} else {
		settings, diags := SettingsFrom(ctx, model, nil)
		resp.Diagnostics.Append(diags...)
		if resp.Diagnostics.HasError() {
			return
		}
		data.Client = kubeclient.NewClient(settings, p.userAgent(req.TerraformVersion))
	}

	p.data.Store(data)
	resp.ResourceData = data
	resp.DataSourceData = data
	resp.EphemeralResourceData = data
	resp.ActionData = data
	resp.ListResourceData = data
}

func (p *kubeinferProvider) userAgent(terraformVersion string) string {
	ua := "terraform-provider-kubeinfer/" + p.version + " (+https://registry.terraform.io/providers/kubeinfer/kubeinfer)"
	if terraformVersion != "" {
		ua += " Terraform/" + terraformVersion
	}
	return ua
}

// unknownAttributes lists the top-level attributes whose value is, or
// contains, an unknown value.
func unknownAttributes(raw tftypes.Value) []string {
	set := map[string]bool{}
	_ = tftypes.Walk(raw, func(p *tftypes.AttributePath, v tftypes.Value) (bool, error) {
		if v.IsKnown() {
			return true, nil
		}
		steps := p.Steps()
		name := "provider configuration"
		if len(steps) > 0 {
			if a, ok := steps[0].(tftypes.AttributeName); ok {
				name = string(a)
			}
		}
		if name == providerrules.AttrPlacementPreview {
			return false, nil // not a connection setting: the preview stays off
		}
		set[name] = true
		return false, nil
	})
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

var osGetenv = os.Getenv

// SettingsFrom maps a fully known provider configuration to kubeclient.Settings,
// filling unset attributes from the KUBE_* environment variables read with
// getenv (os.Getenv when nil). Explicit attributes win over environment
// variables; config_path / config_paths (attributes) win over
// KUBE_CONFIG_PATH, which wins over KUBE_CONFIG_PATHS.
func SettingsFrom(ctx context.Context, m ProviderModel, getenv func(string) string) (kubeclient.Settings, diag.Diagnostics) {
	var diags diag.Diagnostics
	if getenv == nil {
		getenv = osGetenv
	}
	str := func(v types.String, env string) string {
		if !v.IsNull() && !v.IsUnknown() {
			return v.ValueString()
		}
		return getenv(env)
	}

	s := kubeclient.Settings{
		Host:                  str(m.Host, providerrules.EnvHost),
		ConfigContext:         str(m.ConfigContext, providerrules.EnvConfigContext),
		ConfigContextAuthInfo: str(m.ConfigContextAuthInfo, providerrules.EnvConfigContextAuth),
		ConfigContextCluster:  str(m.ConfigContextCluster, providerrules.EnvConfigContextCluster),
		Token:                 str(m.Token, providerrules.EnvToken),
		ClientCertificate:     str(m.ClientCertificate, providerrules.EnvClientCertificate),
		ClientKey:             str(m.ClientKey, providerrules.EnvClientKey),
		ClusterCACertificate:  str(m.ClusterCACertificate, providerrules.EnvClusterCACertificate),
		TLSServerName:         str(m.TLSServerName, providerrules.EnvTLSServerName),
		ProxyURL:              str(m.ProxyURL, providerrules.EnvProxyURL),
	}

	// Kubeconfig paths.
	var paths []string
	if !m.ConfigPaths.IsNull() && !m.ConfigPaths.IsUnknown() {
		diags.Append(m.ConfigPaths.ElementsAs(ctx, &paths, false)...)
	}
	switch {
	case !m.ConfigPath.IsNull() && m.ConfigPath.ValueString() != "":
		s.ConfigPath = m.ConfigPath.ValueString()
	case len(paths) > 0:
		s.ConfigPaths = paths
	case getenv(providerrules.EnvConfigPath) != "":
		s.ConfigPath = getenv(providerrules.EnvConfigPath)
	case getenv(providerrules.EnvConfigPaths) != "":
		s.ConfigPaths = filepath.SplitList(getenv(providerrules.EnvConfigPaths))
	}

	// insecure.
	if !m.Insecure.IsNull() && !m.Insecure.IsUnknown() {
		b := m.Insecure.ValueBool()
		s.Insecure = &b
	} else if v := strings.TrimSpace(getenv(providerrules.EnvInsecure)); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			diags.AddAttributeError(path.Root("insecure"), "Invalid "+providerrules.EnvInsecure+" environment variable",
				fmt.Sprintf("%s must be a boolean (true or false), got %q.", providerrules.EnvInsecure, v))
		} else {
			s.Insecure = &b
		}
	}

	// exec.
	if !m.Exec.IsNull() && !m.Exec.IsUnknown() {
		var e ExecModel
		diags.Append(m.Exec.As(ctx, &e, basetypes.ObjectAsOptions{})...)
		// Normally rejected by execValidator before Configure runs.
		if e.APIVersion.IsNull() {
			diags.Append(providerrules.ExecMissingAttribute(path.Root("exec").AtName("api_version"), "api_version"))
		}
		if e.Command.IsNull() {
			diags.Append(providerrules.ExecMissingAttribute(path.Root("exec").AtName("command"), "command"))
		}
		exec := &kubeclient.ExecConfig{
			APIVersion: e.APIVersion.ValueString(),
			Command:    e.Command.ValueString(),
		}
		if !e.Args.IsNull() && !e.Args.IsUnknown() {
			diags.Append(e.Args.ElementsAs(ctx, &exec.Args, false)...)
		}
		if !e.Env.IsNull() && !e.Env.IsUnknown() {
			diags.Append(e.Env.ElementsAs(ctx, &exec.Env, false)...)
		}
		s.Exec = exec
	}
	return s, diags
}

// Resources returns the resources of the provider.
func (p *kubeinferProvider) Resources(_ context.Context) []func() resource.Resource {
	out := make([]func() resource.Resource, 0, len(kinds))
	for _, k := range kinds {
		out = append(out, kube.NewResource(k))
	}
	return out
}

// kinds are the Kubernetes kinds the provider manages, in the order of their offline rules
// (providerrules.Kinds; TestKindsAreTheRulesRegistry): each is a resource, a data source and a
// list resource of the same name, served by the framework and by the fast path (protocol.NewServer) from this one
// list, so a kind cannot be registered with one and missed by the other. Keep it sorted.
var kinds = []*kube.Kind{
	disaggregatedset.Kind,
	flowschema.Kind,
	leaderworkerset.Kind,
	prioritylevelconfiguration.Kind,
}

// DataSources returns the data sources of the provider.
func (p *kubeinferProvider) DataSources(_ context.Context) []func() datasource.DataSource {
	out := make([]func() datasource.DataSource, 0, 2*len(kinds)+2*len(readOnlyKinds))
	for _, k := range kinds {
		// The names data source: adoption where `terraform query` is not available.
		out = append(out, kube.NewDataSource(k), kube.NewNamesDataSource(k))
	}
	for _, k := range readOnlyKinds {
		out = append(out, kube.NewDataSource(k), kube.NewPluralDataSource(k))
	}
	return out
}

// readOnlyKinds are kinds a controller owns: a data source each, and a plural one that lists
// them by label selector (no resource, so no list resource: `terraform query` imports what it
// finds into managed resources).
var readOnlyKinds = []*kube.Kind{
	disaggregatedset.RoleScalerKind,
}

// ListResources returns the list resources of the provider (`terraform query`), one per kind.
func (p *kubeinferProvider) ListResources(_ context.Context) []func() list.ListResource {
	out := make([]func() list.ListResource, 0, len(kinds))
	for _, k := range kinds {
		out = append(out, kube.NewListResource(k))
	}
	return out
}

// Functions returns the provider-defined functions.
func (p *kubeinferProvider) Functions(_ context.Context) []func() function.Function {
	return []func() function.Function{
		// ---- Registered functions (explicit list; keep sorted) ----
		// Add one constructor per line.
		prioritylevelconfiguration.NewCapacityFunction,
		// ---- end of registered functions ----
	}
}

// Actions returns the provider's actions (Terraform 1.14 and later; OpenTofu has none and never
// asks for them).
func (p *kubeinferProvider) Actions(_ context.Context) []func() action.Action {
	return []func() action.Action{
		// ---- Registered actions (explicit list; keep sorted) ----
		leaderworkerset.NewRestartAction,
		// ---- end of registered actions ----
	}
}
