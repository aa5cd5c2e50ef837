package acctest

import (
	"fmt"
	"os"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/provider"
)

// ProviderFactories serve the provider in-process to the Terraform CLI that
// terraform-plugin-testing runs.
var ProviderFactories = map[string]func() (tfprotov6.ProviderServer, error){
	"kubeinfer": func() (tfprotov6.ProviderServer, error) { return provider.NewServer("test")(), nil },
}

// ProviderConfig is a provider block pointing at the shared cluster of the
// ReleasedLWS profile (see Cluster).
func ProviderConfig(t testing.TB) string { return ProviderConfigFor(Cluster(t)) }

// ProviderConfigFor is a provider block pointing at c.
func ProviderConfigFor(c *TestCluster) string {
	return RequiredProviders() + fmt.Sprintf("provider \"kubeinfer\" {\n  config_path = %q\n}\n", c.KubeconfigPath())
}

// RequiredProviders names the provider's source when the suite runs under OpenTofu
// (TF_ACC_PROVIDER_HOST/NAMESPACE): without it OpenTofu resolves "kubeinfer" to the hashicorp
// namespace in steps that start with an import.
func RequiredProviders() string {
	ns := os.Getenv("TF_ACC_PROVIDER_NAMESPACE")
	if ns == "" {
		return ""
	}
	host := os.Getenv("TF_ACC_PROVIDER_HOST")
	if host == "" {
		host = "registry.terraform.io"
	}
	return fmt.Sprintf("terraform {\n  required_providers {\n    kubeinfer = { source = %q }\n  }\n}\n", host+"/"+ns+"/kubeinfer")
}
