package providerrules

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/placement"
)

// TypeName is the provider type name used in resource type prefixes.
const TypeName = "kubeinfer"

// DefaultFieldManager is the server-side apply field manager used when
// field_manager is not set.
const DefaultFieldManager = "kubeinfer"

// AttrPlacementPreview is the provider attribute that turns the placement preview on. It does
// not say how to reach the cluster, so an unknown value leaves the client usable.
const AttrPlacementPreview = "placement_preview"

// Environment variables read by the provider (the same as the
// hashicorp/kubernetes provider's for the settings both have). Explicit attributes win over them.
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
var ExecAPIVersions = []string{
	"client.authentication.k8s.io/v1",
	"client.authentication.k8s.io/v1beta1",
}

func envNote(env string) string {
	return fmt.Sprintf(" Can also be set with the `%s` environment variable; the attribute wins over the variable.", env)
}

// Schema is the schema of the provider block: the connection settings, field_manager and
// placement_preview.
func Schema() schema.Schema {
	return schema.Schema{
		MarkdownDescription: "The kubeinfer provider manages inference workloads on Kubernetes. " +
			"Its connection settings use the same attribute names and `KUBE_*` environment variables as the " +
			"`hashicorp/kubernetes` provider for the settings both have; `username`, `password`, `ignore_annotations`, " +
			"`ignore_labels` and `experiments` of that provider do not exist here. The cluster is resolved, in order, from `config_path`/`config_paths` " +
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
			AttrPlacementPreview: schema.StringAttribute{
				Optional: true,
				MarkdownDescription: "Whether the plan previews the placement of `kubeinfer_leaderworkerset` and " +
					"`kubeinfer_disaggregatedset` groups on the cluster's nodes, as kube-scheduler would place them: one of `" +
					placement.ModeOff + "`, `" + placement.ModeWarn + "`, `" + placement.ModeError + "`. Defaults to `" +
					placement.ModeOff + "`: the plan of a new or changed object then makes no request. With `" + placement.ModeWarn +
					"` or `" + placement.ModeError + "`, a plan that creates or changes such an object reads the nodes and the pods " +
					"bound to them (one list of each per Terraform command, shared by every resource) and reports, on `replicas`, " +
					"how many groups can be placed and the scheduler's reason for each group that cannot (insufficient " +
					"`nvidia.com/gpu`, an untolerated taint, a node selector no node matches, one group per exclusive topology " +
					"domain), as a warning or as an error. The provider's credentials need `list` on `nodes` and `pods`; " +
					"without them, or without a reachable cluster, the preview is skipped with a warning (an error with `" +
					placement.ModeError + "`). Pods that request an extended resource such as `nvidia.com/gpu` are taken to " +
					"tolerate the taint of that name, as the `ExtendedResourceToleration` admission plugin makes them. " +
					"An unknown value at plan time counts as `" + placement.ModeOff + "`.",
				Validators: []validator.String{stringvalidator.OneOf(placement.Modes...)},
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
						Validators: []validator.String{stringvalidator.OneOf(ExecAPIVersions...)},
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
			resp.Diagnostics.Append(ExecMissingAttribute(req.Path.AtName(name), name))
		}
	}
}

// ExecMissingAttribute is the error on an exec block that leaves out api_version or command.
func ExecMissingAttribute(p path.Path, name string) diag.Diagnostic {
	return diag.NewAttributeErrorDiagnostic(p, "Missing exec."+name,
		fmt.Sprintf("The exec block must set %q: api_version and command are required when the block is present, "+
			"as in the exec block of the hashicorp/kubernetes provider.", name))
}
