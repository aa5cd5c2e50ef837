package acctest

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/protocol"
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

// EnvServeProvider, set to 1 in a test binary's environment, makes acctest.Main serve the
// provider as the release binary does instead of running the tests: ProviderBinaryDir hands
// the CLI the test binary itself as the provider's executable.
const EnvServeProvider = "KUBEINFER_TEST_SERVE_PROVIDER"

// serveProviderIfAsked serves the provider and exits when EnvServeProvider is set.
func serveProviderIfAsked() {
	if os.Getenv(EnvServeProvider) != "1" {
		return
	}
	protocol.Serve(provider.RegistryAddress, provider.NewServer("test"), provider.SchemaAnswer()) // as main.go
	os.Exit(0)
}

// ProviderBinaryDir is a folder for a dev_overrides CLI configuration whose
// terraform-provider-kubeinfer is this test binary, and the environment entry that makes it
// serve the provider. Unlike ProviderFactories, every provider configuration the CLI starts is
// its own process, as with the release binary: aliased or for_each provider instances each
// reach their own cluster. It saves building the provider (about 30 s of CPU).
func ProviderBinaryDir(t testing.TB) (dir, env string) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir = t.TempDir()
	if err := os.Symlink(self, filepath.Join(dir, "terraform-provider-kubeinfer")); err != nil {
		t.Fatal(err)
	}
	return dir, EnvServeProvider + "=1"
}
