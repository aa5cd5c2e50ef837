package acctest

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/provider"
)

// ProviderFactories serve the provider in-process to the Terraform CLI that
// terraform-plugin-testing runs.
var ProviderFactories = map[string]func() (tfprotov6.ProviderServer, error){
	"kubeinfer": func() (tfprotov6.ProviderServer, error) { return provider.NewServer("test")(), nil },
}

// ProviderConfig is a provider block pointing at the shared test cluster.
func ProviderConfig(t testing.TB) string {
	c := Cluster(t)
	return fmt.Sprintf("provider \"kubeinfer\" {\n  config_path = %q\n}\n", c.KubeconfigPath())
}
