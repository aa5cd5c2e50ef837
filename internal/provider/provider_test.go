package provider

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	dsschema "github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kube"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kubeclient"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/providerrules"
)

var testProtoV6ProviderFactories = map[string]func() (tfprotov6.ProviderServer, error){
	"kubeinfer": providerserver.NewProtocol6WithError(New("test")()),
}

func providerSchema(t *testing.T) schema.Schema {
	t.Helper()
	var resp provider.SchemaResponse
	New("test")().Schema(context.Background(), provider.SchemaRequest{}, &resp)
	if resp.Diagnostics.HasError() {
		t.Fatalf("schema diagnostics: %v", resp.Diagnostics)
	}
	return resp.Schema
}

func TestMetadata(t *testing.T) {
	var resp provider.MetadataResponse
	New("1.2.3")().Metadata(context.Background(), provider.MetadataRequest{}, &resp)
	if resp.TypeName != "kubeinfer" || resp.Version != "1.2.3" {
		t.Errorf("metadata = %+v", resp)
	}
}

func TestSchema(t *testing.T) {
	s := providerSchema(t)
	if diags := s.ValidateImplementation(context.Background()); diags.HasError() {
		t.Fatalf("ValidateImplementation: %v", diags)
	}
	want := map[string]string{ // attribute -> env var mentioned in its description
		"host":                     providerrules.EnvHost,
		"config_path":              providerrules.EnvConfigPath,
		"config_paths":             providerrules.EnvConfigPaths,
		"config_context":           providerrules.EnvConfigContext,
		"config_context_auth_info": providerrules.EnvConfigContextAuth,
		"config_context_cluster":   providerrules.EnvConfigContextCluster,
		"token":                    providerrules.EnvToken,
		"client_certificate":       providerrules.EnvClientCertificate,
		"client_key":               providerrules.EnvClientKey,
		"cluster_ca_certificate":   providerrules.EnvClusterCACertificate,
		"insecure":                 providerrules.EnvInsecure,
		"tls_server_name":          providerrules.EnvTLSServerName,
		"proxy_url":                providerrules.EnvProxyURL,
		"field_manager":            "",
		"placement_preview":        "",
	}
	if len(s.Attributes) != len(want) {
		t.Errorf("schema has %d attributes, want %d", len(s.Attributes), len(want))
	}
	for name, env := range want {
		a, ok := s.Attributes[name]
		if !ok {
			t.Errorf("missing attribute %q", name)
			continue
		}
		if !a.IsOptional() || a.IsRequired() || a.IsComputed() {
			t.Errorf("%s: want optional only", name)
		}
		desc := a.GetMarkdownDescription()
		if desc == "" {
			t.Errorf("%s: no description", name)
		}
		if env != "" && !strings.Contains(desc, env) {
			t.Errorf("%s: description does not mention %s", name, env)
		}
		sensitive := name == "token" || name == "client_key"
		if a.IsSensitive() != sensitive {
			t.Errorf("%s: sensitive = %v, want %v", name, a.IsSensitive(), sensitive)
		}
	}
	// exec is a block, as in the hashicorp/kubernetes provider.
	if _, ok := s.Attributes["exec"]; ok {
		t.Error("exec must be a block, not an attribute")
	}
	if len(s.Blocks) != 1 {
		t.Errorf("schema has %d blocks, want 1 (exec)", len(s.Blocks))
	}
	exec, ok := s.Blocks["exec"].(schema.SingleNestedBlock)
	if !ok {
		t.Fatalf("exec is %T, want SingleNestedBlock", s.Blocks["exec"])
	}
	if exec.GetMarkdownDescription() == "" {
		t.Error("exec: no description")
	}
	if len(exec.Validators) == 0 {
		t.Error("exec: no validator requiring api_version and command")
	}
	for _, name := range []string{"api_version", "command", "args", "env"} {
		a, ok := exec.Attributes[name]
		if !ok || a.GetMarkdownDescription() == "" {
			t.Errorf("exec.%s missing or undocumented", name)
			continue
		}
		// Required attributes would make the block itself mandatory.
		if !a.IsOptional() || a.IsRequired() || a.IsComputed() {
			t.Errorf("exec.%s: want optional only", name)
		}
	}
	if s.MarkdownDescription == "" {
		t.Error("provider has no description")
	}
}

// configValue builds a provider configuration value with every attribute
// null except those given.
func configValue(t *testing.T, s schema.Schema, set map[string]tftypes.Value) tftypes.Value {
	t.Helper()
	typ := s.Type().TerraformType(context.Background()).(tftypes.Object)
	vals := map[string]tftypes.Value{}
	for name, at := range typ.AttributeTypes {
		if v, ok := set[name]; ok {
			vals[name] = v
		} else {
			vals[name] = tftypes.NewValue(at, nil)
		}
	}
	return tftypes.NewValue(typ, vals)
}

func configure(t *testing.T, set map[string]tftypes.Value) (*kube.ProviderData, provider.ConfigureResponse) {
	t.Helper()
	s := providerSchema(t)
	req := provider.ConfigureRequest{
		TerraformVersion: "1.11.4",
		Config:           tfsdk.Config{Schema: s, Raw: configValue(t, s, set)},
	}
	var resp provider.ConfigureResponse
	New("test")().Configure(context.Background(), req, &resp)
	pd, _ := resp.ResourceData.(*kube.ProviderData)
	if resp.DataSourceData != resp.ResourceData || resp.EphemeralResourceData != resp.ResourceData {
		t.Error("resources and data sources do not get the same provider data")
	}
	return pd, resp
}

func TestConfigureUnknownValues(t *testing.T) {
	execType := tftypes.Object{AttributeTypes: map[string]tftypes.Type{
		"api_version": tftypes.String, "command": tftypes.String,
		"args": tftypes.List{ElementType: tftypes.String}, "env": tftypes.Map{ElementType: tftypes.String},
	}}
	cases := map[string]map[string]tftypes.Value{
		"host": {
			"host":  tftypes.NewValue(tftypes.String, tftypes.UnknownValue),
			"token": tftypes.NewValue(tftypes.String, "t"),
		},
		"everything": {
			"host":                   tftypes.NewValue(tftypes.String, tftypes.UnknownValue),
			"token":                  tftypes.NewValue(tftypes.String, tftypes.UnknownValue),
			"cluster_ca_certificate": tftypes.NewValue(tftypes.String, tftypes.UnknownValue),
			"insecure":               tftypes.NewValue(tftypes.Bool, tftypes.UnknownValue),
			"config_paths":           tftypes.NewValue(tftypes.List{ElementType: tftypes.String}, tftypes.UnknownValue),
			"exec":                   tftypes.NewValue(execType, tftypes.UnknownValue),
			"field_manager":          tftypes.NewValue(tftypes.String, tftypes.UnknownValue),
		},
		"nested exec args": {
			"host": tftypes.NewValue(tftypes.String, "https://example.com"),
			"exec": tftypes.NewValue(execType, map[string]tftypes.Value{
				"api_version": tftypes.NewValue(tftypes.String, "client.authentication.k8s.io/v1beta1"),
				"command":     tftypes.NewValue(tftypes.String, "aws"),
				"args": tftypes.NewValue(tftypes.List{ElementType: tftypes.String}, []tftypes.Value{
					tftypes.NewValue(tftypes.String, "eks"),
					tftypes.NewValue(tftypes.String, tftypes.UnknownValue),
				}),
				"env": tftypes.NewValue(tftypes.Map{ElementType: tftypes.String}, nil),
			}),
		},
	}
	for name, set := range cases {
		t.Run(name, func(t *testing.T) {
			pd, resp := configure(t, set)
			if resp.Diagnostics.HasError() {
				t.Fatalf("diagnostics: %v", resp.Diagnostics)
			}
			if pd == nil || pd.Client == nil {
				t.Fatal("no provider data")
			}
			if pd.FieldManager != providerrules.DefaultFieldManager {
				t.Errorf("FieldManager = %q", pd.FieldManager)
			}
			_, err := pd.Client.RESTConfig()
			if !errors.Is(err, kubeclient.ErrUnknownConfiguration) || !strings.Contains(err.Error(), "not known until apply") {
				t.Errorf("RESTConfig err = %v", err)
			}
		})
	}
}

func TestConfigureKnownValues(t *testing.T) {
	t.Setenv("KUBECONFIG", "")
	pd, resp := configure(t, map[string]tftypes.Value{
		"host":          tftypes.NewValue(tftypes.String, "https://127.0.0.1:1"),
		"token":         tftypes.NewValue(tftypes.String, "t"),
		"field_manager": tftypes.NewValue(tftypes.String, "custom"),
	})
	if resp.Diagnostics.HasError() {
		t.Fatalf("diagnostics: %v", resp.Diagnostics)
	}
	if pd.FieldManager != "custom" {
		t.Errorf("FieldManager = %q", pd.FieldManager)
	}
	cfg, err := pd.Client.RESTConfig()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Host != "https://127.0.0.1:1" || cfg.BearerToken != "t" {
		t.Errorf("host=%q", cfg.Host)
	}
	if !strings.HasPrefix(cfg.UserAgent, "terraform-provider-kubeinfer/test") || !strings.Contains(cfg.UserAgent, "Terraform/1.11.4") {
		t.Errorf("UserAgent = %q", cfg.UserAgent)
	}

	// An invalid KUBE_INSECURE is reported in Configure.
	t.Setenv(providerrules.EnvInsecure, "maybe")
	_, resp = configure(t, nil)
	if !resp.Diagnostics.HasError() {
		t.Error("want an error for KUBE_INSECURE=maybe")
	}
}

func TestSettingsFromEnvPrecedence(t *testing.T) {
	env := map[string]string{
		providerrules.EnvHost:                 "https://env-host",
		providerrules.EnvConfigPath:           "/env/config",
		providerrules.EnvConfigPaths:          "/env/a:/env/b",
		providerrules.EnvConfigContext:        "env-ctx",
		providerrules.EnvConfigContextAuth:    "env-user",
		providerrules.EnvConfigContextCluster: "env-cluster",
		providerrules.EnvToken:                "env-token",
		providerrules.EnvClientCertificate:    "env-cert",
		providerrules.EnvClientKey:            "env-key",
		providerrules.EnvClusterCACertificate: "env-ca",
		providerrules.EnvInsecure:             "true",
		providerrules.EnvTLSServerName:        "env-sni",
		providerrules.EnvProxyURL:             "http://env-proxy",
	}
	for k, v := range env {
		t.Setenv(k, v)
	}
	ctx := context.Background()
	null := ProviderModel{
		ConfigPaths: types.ListNull(types.StringType),
		Exec:        types.ObjectNull(ExecAttrTypes),
	}

	// Environment only (through os.Getenv, i.e. getenv == nil).
	s, diags := SettingsFrom(ctx, null, nil)
	if diags.HasError() {
		t.Fatal(diags)
	}
	if s.Host != "https://env-host" || s.ConfigPath != "/env/config" || s.ConfigPaths != nil ||
		s.ConfigContext != "env-ctx" || s.ConfigContextAuthInfo != "env-user" || s.ConfigContextCluster != "env-cluster" ||
		s.Token != "env-token" || s.ClientCertificate != "env-cert" || s.ClientKey != "env-key" ||
		s.ClusterCACertificate != "env-ca" || s.Insecure == nil || !*s.Insecure ||
		s.TLSServerName != "env-sni" || s.ProxyURL != "http://env-proxy" || s.Exec != nil {
		t.Errorf("env settings = %+v", s)
	}

	// KUBE_CONFIG_PATHS is used when KUBE_CONFIG_PATH is not set.
	t.Setenv(providerrules.EnvConfigPath, "")
	s, _ = SettingsFrom(ctx, null, nil)
	if s.ConfigPath != "" || strings.Join(s.ConfigPaths, ",") != "/env/a,/env/b" {
		t.Errorf("KUBE_CONFIG_PATHS: path=%q paths=%v", s.ConfigPath, s.ConfigPaths)
	}

	// Explicit attributes win.
	explicit := ProviderModel{
		Host:                  types.StringValue("https://attr-host"),
		ConfigPaths:           types.ListValueMust(types.StringType, []attr.Value{types.StringValue("/attr/a"), types.StringValue("/attr/b")}),
		ConfigContext:         types.StringValue("attr-ctx"),
		ConfigContextAuthInfo: types.StringValue("attr-user"),
		ConfigContextCluster:  types.StringValue("attr-cluster"),
		Token:                 types.StringValue("attr-token"),
		ClientCertificate:     types.StringValue("attr-cert"),
		ClientKey:             types.StringValue("attr-key"),
		ClusterCACertificate:  types.StringValue("attr-ca"),
		Insecure:              types.BoolValue(false),
		TLSServerName:         types.StringValue("attr-sni"),
		ProxyURL:              types.StringValue("http://attr-proxy"),
		Exec: types.ObjectValueMust(ExecAttrTypes, map[string]attr.Value{
			"api_version": types.StringValue("client.authentication.k8s.io/v1"),
			"command":     types.StringValue("cmd"),
			"args":        types.ListValueMust(types.StringType, []attr.Value{types.StringValue("x")}),
			"env":         types.MapValueMust(types.StringType, map[string]attr.Value{"K": types.StringValue("V")}),
		}),
	}
	getenv := func(k string) string { return env[k] } // includes KUBE_CONFIG_PATH
	s, diags = SettingsFrom(ctx, explicit, getenv)
	if diags.HasError() {
		t.Fatal(diags)
	}
	if s.Host != "https://attr-host" || s.ConfigPath != "" || strings.Join(s.ConfigPaths, ",") != "/attr/a,/attr/b" ||
		s.ConfigContext != "attr-ctx" || s.ConfigContextAuthInfo != "attr-user" || s.ConfigContextCluster != "attr-cluster" ||
		s.Token != "attr-token" || s.ClientCertificate != "attr-cert" || s.ClientKey != "attr-key" ||
		s.ClusterCACertificate != "attr-ca" || s.Insecure == nil || *s.Insecure ||
		s.TLSServerName != "attr-sni" || s.ProxyURL != "http://attr-proxy" {
		t.Errorf("explicit settings = %+v", s)
	}
	if s.Exec == nil || s.Exec.APIVersion != "client.authentication.k8s.io/v1" || s.Exec.Command != "cmd" ||
		len(s.Exec.Args) != 1 || s.Exec.Env["K"] != "V" {
		t.Errorf("exec = %+v", s.Exec)
	}

	// config_path wins over config_paths and the environment.
	explicit.ConfigPath = types.StringValue("/attr/config")
	s, _ = SettingsFrom(ctx, explicit, getenv)
	if s.ConfigPath != "/attr/config" || s.ConfigPaths != nil {
		t.Errorf("config_path: path=%q paths=%v", s.ConfigPath, s.ConfigPaths)
	}
}

// probeProvider is the real provider plus a test-only data source that
// reports what Configure handed to data sources, so the tests below go
// through Terraform's real Configure call.
type probeProvider struct{ *kubeinferProvider }

func (p probeProvider) DataSources(ctx context.Context) []func() datasource.DataSource {
	return append(p.kubeinferProvider.DataSources(ctx), func() datasource.DataSource { return &probeDataSource{} })
}

type probeDataSource struct{ data *kube.ProviderData }

func (d *probeDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_probe"
}

func (d *probeDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = dsschema.Schema{Attributes: map[string]dsschema.Attribute{
		"host":          dsschema.StringAttribute{Computed: true},
		"field_manager": dsschema.StringAttribute{Computed: true},
		"error":         dsschema.StringAttribute{Computed: true},
	}}
}

func (d *probeDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	if req.ProviderData == nil {
		return
	}
	pd, ok := req.ProviderData.(*kube.ProviderData)
	if !ok {
		resp.Diagnostics.AddError("unexpected provider data", fmt.Sprintf("%T", req.ProviderData))
		return
	}
	d.data = pd
}

func (d *probeDataSource) Read(ctx context.Context, _ datasource.ReadRequest, resp *datasource.ReadResponse) {
	host, errText := "", ""
	cfg, err := d.data.Client.RESTConfig()
	if err != nil {
		errText = err.Error()
	} else {
		host = cfg.Host
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("host"), host)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("field_manager"), d.data.FieldManager)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("error"), errText)...)
}

var probeFactories = map[string]func() (tfprotov6.ProviderServer, error){
	"kubeinfer": providerserver.NewProtocol6WithError(probeProvider{New("test")().(*kubeinferProvider)}),
}

func TestProviderUnit(t *testing.T) {
	t.Setenv("KUBECONFIG", "")
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: `provider "kubeinfer" {
  host = "https://127.0.0.1:1"
}
`,
				PlanOnly: true,
			},
		},
	})
}

func TestProviderUnitConfigure(t *testing.T) {
	t.Setenv("KUBECONFIG", "")
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: probeFactories,
		Steps: []resource.TestStep{
			{
				Config: `provider "kubeinfer" {
  host = "https://127.0.0.1:1"
  exec {
    api_version = "client.authentication.k8s.io/v1beta1"
    command     = "true"
    args        = ["a", "b"]
    env         = { A = "1" }
  }
}

data "kubeinfer_probe" "p" {}
`,
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr("data.kubeinfer_probe.p", "host", "https://127.0.0.1:1"),
					resource.TestCheckResourceAttr("data.kubeinfer_probe.p", "field_manager", providerrules.DefaultFieldManager),
					resource.TestCheckResourceAttr("data.kubeinfer_probe.p", "error", ""),
				),
			},
			{
				// The provider configuration depends on a value known only
				// after apply: Configure must not fail.
				Config: `resource "terraform_data" "cluster" {
  input = "https://127.0.0.1:2"
}

provider "kubeinfer" {
  host          = terraform_data.cluster.output
  field_manager = "ci"
}

data "kubeinfer_probe" "p" {}
`,
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr("data.kubeinfer_probe.p", "field_manager", "ci"),
					resource.TestMatchResourceAttr("data.kubeinfer_probe.p", "error", regexp.MustCompile("not known until apply")),
				),
			},
		},
	})
}

func TestProviderUnitInvalidExecVersion(t *testing.T) {
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: probeFactories,
		Steps: []resource.TestStep{
			{
				Config: `provider "kubeinfer" {
  exec {
    api_version = "client.authentication.k8s.io/v1alpha1"
    command     = "true"
  }
}

data "kubeinfer_probe" "p" {}
`,
				ExpectError: regexp.MustCompile(`client.authentication.k8s.io/v1`),
			},
		},
	})
}

// When the exec block is present, api_version and command are required
// (the framework cannot mark them Required inside a SingleNestedBlock).
func TestProviderUnitExecBlockRequiresAPIVersionAndCommand(t *testing.T) {
	cases := map[string]struct {
		block string
		want  *regexp.Regexp
	}{
		"empty":               {"exec {}", regexp.MustCompile(`(?s)Missing exec.api_version.*Missing exec.command|(?s)Missing exec.command.*Missing exec.api_version`)},
		"without command":     {"exec {\n    api_version = \"client.authentication.k8s.io/v1\"\n  }", regexp.MustCompile(`Missing exec.command`)},
		"without api_version": {"exec {\n    command = \"true\"\n    args    = [\"a\"]\n  }", regexp.MustCompile(`Missing exec.api_version`)},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			resource.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: probeFactories,
				Steps: []resource.TestStep{
					{
						Config:      "provider \"kubeinfer\" {\n  " + tc.block + "\n}\n\ndata \"kubeinfer_probe\" \"p\" {}\n",
						ExpectError: tc.want,
					},
				},
			})
		})
	}
}

func TestSettingsFromExecMissingAttributes(t *testing.T) {
	m := ProviderModel{
		ConfigPaths: types.ListNull(types.StringType),
		Exec: types.ObjectValueMust(ExecAttrTypes, map[string]attr.Value{
			"api_version": types.StringNull(),
			"command":     types.StringNull(),
			"args":        types.ListNull(types.StringType),
			"env":         types.MapNull(types.StringType),
		}),
	}
	_, diags := SettingsFrom(context.Background(), m, func(string) string { return "" })
	if diags.ErrorsCount() != 2 {
		t.Fatalf("want 2 errors (api_version, command), got %v", diags)
	}
	for _, d := range diags.Errors() {
		if !strings.HasPrefix(d.Summary(), "Missing exec.") {
			t.Errorf("unexpected diagnostic %q", d.Summary())
		}
	}
}

// TestConfigurePlacementPreview: placement_preview defaults to off, is passed on when known, and
// an unknown value (off) leaves the connection usable: it says nothing about the cluster.
func TestConfigurePlacementPreview(t *testing.T) {
	t.Setenv("KUBECONFIG", "")
	connection := map[string]tftypes.Value{
		"host":  tftypes.NewValue(tftypes.String, "https://127.0.0.1:1"),
		"token": tftypes.NewValue(tftypes.String, "t"),
	}
	for name, tc := range map[string]struct {
		value tftypes.Value
		want  string
	}{
		"unset":   {tftypes.NewValue(tftypes.String, nil), kube.PlacementOff},
		"warn":    {tftypes.NewValue(tftypes.String, "warn"), kube.PlacementWarn},
		"error":   {tftypes.NewValue(tftypes.String, "error"), kube.PlacementError},
		"unknown": {tftypes.NewValue(tftypes.String, tftypes.UnknownValue), kube.PlacementOff},
	} {
		t.Run(name, func(t *testing.T) {
			set := maps.Clone(connection)
			set["placement_preview"] = tc.value
			pd, resp := configure(t, set)
			if resp.Diagnostics.HasError() {
				t.Fatalf("diagnostics: %v", resp.Diagnostics)
			}
			if pd.PlacementPreview != tc.want {
				t.Errorf("PlacementPreview = %q, want %q", pd.PlacementPreview, tc.want)
			}
			if _, err := pd.Client.RESTConfig(); err != nil {
				t.Errorf("RESTConfig: %v", err)
			}
		})
	}
}
