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

	"github.com/hashicorp/terraform-plugin-go/tfprotov6/tf6server"

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
	err = tf6server.Serve("registry.terraform.io/kubeinfer/kubeinfer", provider.NewServer("profile"))
	pprof.StopCPUProfile()
	_ = f.Close()
	if err != nil {
		log.Fatal(err)
	}
}
