// Command profprovider is the provider with CPU profiling, to find where the provider's time
// goes under a real Terraform run: every process writes cpu-<pid>.prof to
// $KUBEINFER_CPUPROFILE_DIR (required) when Terraform stops it.
//
//	go build -o /tmp/prof/terraform-provider-kubeinfer ./scripts/bench/profprovider
//	# dev_overrides pointing at /tmp/prof; KUBEINFER_CPUPROFILE_DIR=/tmp/prof/out terraform apply ...
//	go tool pprof -top /tmp/prof/terraform-provider-kubeinfer /tmp/prof/out/*.prof
package main

import (
	"fmt"
	"log"
	"os"
	"path/filepath"
	"runtime/pprof"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/protocol"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/provider"
)

func main() {
	dir := os.Getenv("KUBEINFER_CPUPROFILE_DIR")
	if dir == "" {
		log.Fatal("profprovider: set KUBEINFER_CPUPROFILE_DIR")
	}
	f, err := os.Create(filepath.Join(dir, fmt.Sprintf("cpu-%d.prof", os.Getpid())))
	if err != nil {
		log.Fatal(err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		log.Fatal(err)
	}
	// As main.go: tf6server's service, GetProviderSchema answered from the encoded bytes.
	protocol.Serve(provider.RegistryAddress, provider.NewServer("profile"), provider.SchemaAnswer())
	pprof.StopCPUProfile()
	_ = f.Close()
}
