// Command terraform-provider-kubeinfer is the kubeinfer Terraform provider.
package main

import (
	"flag"
	"log"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6/tf6server"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/protocol"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/provider"
)

// version is set by goreleaser with -ldflags "-X main.version=...".
var version = "dev"

func main() {
	var debug bool
	flag.BoolVar(&debug, "debug", false, "set to true to run the provider with support for debuggers like delve")
	flag.Parse()

	if debug {
		if err := tf6server.Serve(provider.RegistryAddress, provider.NewServer(version), tf6server.WithManagedDebug()); err != nil {
			log.Fatal(err.Error())
		}
		return
	}
	// As tf6server.Serve, with the GetProviderSchema answer encoded at build time (issue #28).
	protocol.Serve(provider.RegistryAddress, provider.NewServer(version), provider.SchemaAnswer())
}
