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

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/function"
	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
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
)

// TypeName is the provider type name used in resource type prefixes.
const TypeName = "kubeinfer"

// DefaultFieldManager is the server-side apply field manager used when
// field_manager is not set.
const DefaultFieldManager = "kubeinfer"

// Environment variables read by the provider (the same as the
// hashicorp/kubernetes provider). Explicit attributes win over them.
const (
	EnvHost                 = "KUBE_HOST"
	EnvConfigPath           = "KUBE_CONFIG_PATH"
	EnvConfigPaths          = "KUBE_CONFIG_PATHS"
	EnvConfigContext        = "KUBE_CTX"
	EnvConfigContextAuth    = "KUBE_CTX_AUTH_INFO"
	EnvConfigContextCluster = "KUBE_CTX_CLUSTER"
	EnvToken                = "KUBE_TOKEN"
	EnvClientCertificate    = "KUBE_CLIENT_CERT_DATA"
	EnvClientKey            = "KUBE_CLIENT_KEY_DATA"
	EnvClusterCACertificate = "KUBE_CLUSTER_CA_CERT_DATA"
	EnvInsecure             = "KUBE_INSECURE"
	EnvTLSServerName        = "KUBE_TLS_SERVER_NAME"
	EnvProxyURL             = "KUBE_PROXY_URL"
)

// Supported client.authentication.k8s.io versions for exec plugins
// (client-go no longer supports v1alpha1).
var execAPIVersions = []string{
	"client.authentication.k8s.io/v1",
	"client.authentication.k8s.io/v1beta1",
}

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

// attrPlacementPreview is the provider attribute that turns the placement preview on. It does
// not say how to reach the cluster, so an unknown value leaves the client usable.
const attrPlacementPreview = "placement_preview"

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

func envNote(env string) string {
	return fmt.Sprintf(" Can also be set with the `%s` environment variable; the attribute wins over the variable.", env)
}

func (p *kubeinferProvider) Schema(_ context.Context, _ provider.SchemaRequest, resp *provider.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "The kubeinfer provider manages inference workloads on Kubernetes. " +
			"Its connection settings use the same attribute names and `KUBE_*` environment variables as the " +
			"`hashicorp/kubernetes` provider. The cluster is resolved, in order, from `config_path`/`config_paths` " +
			"(with `host` and credentials overriding the kubeconfig), from `host` and explicit credentials, from the " +
			"`KUBECONFIG` environment variable, and finally from the in-cluster service account. " +
			"The provider never contacts the cluster while it is configured, so its configuration may depend on " +
			"resources created in the same apply (for example a new cluster).",
		Attributes: map[string]schema.Attribute{
			"host": schema.StringAttribute{
				Optional: true,
				MarkdownDescription: "The address of the Kubernetes API server, as a URL (`https://host:port`) or " +
					"`host:port`. Overrides the server of the kubeconfig when `config_path`/`config_paths` is set. " +
					"Credentials are only sent to `https` addresses." +
					envNote(EnvHost),
			},
			"config_path": schema.StringAttribute{
				Optional: true,
				MarkdownDescription: "Path to a kubeconfig file; `~` is expanded. Conflicts with `config_paths`." +
					envNote(EnvConfigPath),
				Validators: []validator.String{
					stringvalidator.ConflictsWith(path.MatchRoot("config_paths")),
				},
			},
			"config_paths": schema.ListAttribute{
				Optional:    true,
				ElementType: types.StringType,
				MarkdownDescription: "A list of paths to kubeconfig files, merged like `KUBECONFIG` (the first file " +
					"that sets a value wins); `~` is expanded. Can also be set with the `" + EnvConfigPaths +
					"` environment variable, a list separated by `:` (`;` on Windows); the attribute wins over the variable.",
			},
			"config_context": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "Context of the kubeconfig to use instead of its current context." + envNote(EnvConfigContext),
			},
			"config_context_auth_info": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "Kubeconfig user (auth info) to use instead of the one of the context." + envNote(EnvConfigContextAuth),
			},
			"config_context_cluster": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "Kubeconfig cluster to use instead of the one of the context." + envNote(EnvConfigContextCluster),
			},
			"token": schema.StringAttribute{
				Optional:            true,
				Sensitive:           true,
				MarkdownDescription: "Bearer token used to authenticate to the API server." + envNote(EnvToken),
			},
			"client_certificate": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "PEM-encoded client certificate for TLS authentication (the data, not a file name)." + envNote(EnvClientCertificate),
			},
			"client_key": schema.StringAttribute{
				Optional:            true,
				Sensitive:           true,
				MarkdownDescription: "PEM-encoded private key of `client_certificate` (the data, not a file name)." + envNote(EnvClientKey),
			},
			"cluster_ca_certificate": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "PEM-encoded root certificate bundle used to verify the API server (the data, not a file name)." + envNote(EnvClusterCACertificate),
			},
			"insecure": schema.BoolAttribute{
				Optional:            true,
				MarkdownDescription: "Whether to skip verification of the API server's TLS certificate. Not recommended." + envNote(EnvInsecure),
			},
			"tls_server_name": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "Server name sent for SNI and used to verify the API server's certificate." + envNote(EnvTLSServerName),
			},
			"proxy_url": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "URL of the proxy used for all requests to the API server." + envNote(EnvProxyURL),
			},
			"field_manager": schema.StringAttribute{
				Optional: true,
				MarkdownDescription: "Field manager name used for server-side apply. Defaults to `" +
					DefaultFieldManager + "`.",
				Validators: []validator.String{stringvalidator.LengthBetween(1, 128)},
			},
			attrPlacementPreview: schema.StringAttribute{
				Optional: true,
				MarkdownDescription: "Whether the plan previews the placement of `kubeinfer_leaderworkerset` and " +
					"`kubeinfer_disaggregatedset` groups on the cluster's nodes, as kube-scheduler would place them: one of `" +
					kube.PlacementOff + "`, `" + kube.PlacementWarn + "`, `" + kube.PlacementError + "`. Defaults to `" +
					kube.PlacementOff + "`: the plan of a new or changed object then makes no request. With `" + kube.PlacementWarn +
					"` or `" + kube.PlacementError + "`, a plan that creates or changes such an object reads the nodes and the pods " +
					"bound to them (one list of each per Terraform command, shared by every resource) and reports, on `replicas`, " +
					"how many groups can be placed and the scheduler's reason for each group that cannot (insufficient " +
					"`nvidia.com/gpu`, an untolerated taint, a node selector no node matches, one group per exclusive topology " +
					"domain), as a warning or as an error. The provider's credentials need `get` and `list` on `nodes` and `pods`; " +
					"without them, or without a reachable cluster, the preview is skipped with a warning (an error with `" +
					kube.PlacementError + "`). Pods that request an extended resource such as `nvidia.com/gpu` are taken to " +
					"tolerate the taint of that name, as the `ExtendedResourceToleration` admission plugin makes them. " +
					"An unknown value at plan time counts as `" + kube.PlacementOff + "`.",
				Validators: []validator.String{stringvalidator.OneOf(kube.PlacementModes...)},
			},
		},
		Blocks: map[string]schema.Block{
			"exec": schema.SingleNestedBlock{
				MarkdownDescription: "Configuration of a client-go credential plugin that prints credentials " +
					"(for example `aws eks get-token`). Written as a block, `exec { ... }`, matching the `exec` block of " +
					"the `hashicorp/kubernetes` provider, so its configuration can be reused as is. " +
					"When the block is present, `api_version` and `command` are required. " +
					"The plugin never prompts for input.",
				Attributes: map[string]schema.Attribute{
					// Optional rather than Required: Terraform would otherwise
					// require them even when the block is absent. execValidator
					// requires them when the block is present.
					"api_version": schema.StringAttribute{
						Optional: true,
						MarkdownDescription: "API version of the `ExecCredential` exchanged with the plugin: " +
							"`client.authentication.k8s.io/v1` or `client.authentication.k8s.io/v1beta1`. " +
							"Required when the `exec` block is present.",
						Validators: []validator.String{stringvalidator.OneOf(execAPIVersions...)},
					},
					"command": schema.StringAttribute{
						Optional: true,
						MarkdownDescription: "Command to run: an absolute path, or a name looked up in `PATH`. " +
							"Required when the `exec` block is present.",
					},
					"args": schema.ListAttribute{
						Optional:            true,
						ElementType:         types.StringType,
						MarkdownDescription: "Arguments passed to the command.",
					},
					"env": schema.MapAttribute{
						Optional:            true,
						ElementType:         types.StringType,
						MarkdownDescription: "Environment variables set for the command, in addition to Terraform's environment.",
					},
				},
				Validators: []validator.Object{execValidator{}},
			},
		},
	}
}

// execRequired are the attributes of the exec block that must be set when
// the block is present.
var execRequired = []string{"api_version", "command"}

// execValidator requires api_version and command when the exec block is
// present. A SingleNestedBlock cannot mark them Required: Terraform would
// then require them, and so the block, in every configuration.
type execValidator struct{}

var _ validator.Object = execValidator{}

func (execValidator) Description(_ context.Context) string {
	return "api_version and command must be set when the exec block is present"
}

func (v execValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (execValidator) ValidateObject(_ context.Context, req validator.ObjectRequest, resp *validator.ObjectResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	attrs := req.ConfigValue.Attributes()
	for _, name := range execRequired {
		// Unknown values are fine: they are set, only not known yet.
		if v, ok := attrs[name]; !ok || v.IsNull() {
			resp.Diagnostics.Append(execMissingAttribute(req.Path.AtName(name), name))
		}
	}
}

func execMissingAttribute(p path.Path, name string) diag.Diagnostic {
	return diag.NewAttributeErrorDiagnostic(p, "Missing exec."+name,
		fmt.Sprintf("The exec block must set %q: api_version and command are required when the block is present, "+
			"as in the exec block of the hashicorp/kubernetes provider.", name))
}

func (p *kubeinferProvider) Configure(ctx context.Context, req provider.ConfigureRequest, resp *provider.ConfigureResponse) {
	var model ProviderModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &model)...)
	if resp.Diagnostics.HasError() {
		return
	}

	data := &kube.ProviderData{FieldManager: DefaultFieldManager}
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
		if name == attrPlacementPreview {
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
		Host:                  str(m.Host, EnvHost),
		ConfigContext:         str(m.ConfigContext, EnvConfigContext),
		ConfigContextAuthInfo: str(m.ConfigContextAuthInfo, EnvConfigContextAuth),
		ConfigContextCluster:  str(m.ConfigContextCluster, EnvConfigContextCluster),
		Token:                 str(m.Token, EnvToken),
		ClientCertificate:     str(m.ClientCertificate, EnvClientCertificate),
		ClientKey:             str(m.ClientKey, EnvClientKey),
		ClusterCACertificate:  str(m.ClusterCACertificate, EnvClusterCACertificate),
		TLSServerName:         str(m.TLSServerName, EnvTLSServerName),
		ProxyURL:              str(m.ProxyURL, EnvProxyURL),
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
	case getenv(EnvConfigPath) != "":
		s.ConfigPath = getenv(EnvConfigPath)
	case getenv(EnvConfigPaths) != "":
		s.ConfigPaths = filepath.SplitList(getenv(EnvConfigPaths))
	}

	// insecure.
	if !m.Insecure.IsNull() && !m.Insecure.IsUnknown() {
		b := m.Insecure.ValueBool()
		s.Insecure = &b
	} else if v := strings.TrimSpace(getenv(EnvInsecure)); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			diags.AddAttributeError(path.Root("insecure"), "Invalid "+EnvInsecure+" environment variable",
				fmt.Sprintf("%s must be a boolean (true or false), got %q.", EnvInsecure, v))
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
			diags.Append(execMissingAttribute(path.Root("exec").AtName("api_version"), "api_version"))
		}
		if e.Command.IsNull() {
			diags.Append(execMissingAttribute(path.Root("exec").AtName("command"), "command"))
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

// kinds are the Kubernetes kinds the provider manages: each is a resource, a data source and a
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
