// Command terraform-provider-kubeinfer is the kubeinfer Terraform provider.
package main

import (
	"flag"
	"log"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6/tf6server"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/provider"
)

// version is set by goreleaser with -ldflags "-X main.version=...".
var version = "dev"

func main() {
	var debug bool
	flag.BoolVar(&debug, "debug", false, "set to true to run the provider with support for debuggers like delve")
	flag.Parse()

	var opts []tf6server.ServeOpt
	if debug {
		opts = append(opts, tf6server.WithManagedDebug())
	}
	if err := tf6server.Serve("registry.terraform.io/kubeinfer/kubeinfer", provider.NewServer(version), opts...); err != nil {
		log.Fatal(err.Error())
	}
}
