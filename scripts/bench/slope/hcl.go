package main

import (
	"fmt"
	"strings"

	"github.com/kubeinfer/terraform-provider-kubeinfer/scripts/bench/internal/tfbench"
)

// dims are the lists of the worker template that a case grows, as in BenchmarkPlanCreateScale
// (internal/leaderworkerset/bench_test.go): containers, env entries of the main container,
// volumes and tolerations.
var dims = map[string]func(i int) string{
	// A sidecar: name, image and a small resources request.
	"containers": func(i int) string {
		return fmt.Sprintf(`{ name = "sidecar-%d", image = "busybox:1.37", resources = { requests = { cpu = "10m", memory = "16Mi" } } }`, i)
	},
	"env": func(i int) string {
		return fmt.Sprintf(`{ name = "VAR_%d", value = "x" }`, i)
	},
	"volumes": func(i int) string {
		return fmt.Sprintf(`{ name = "vol-%d", empty_dir = {} }`, i)
	},
	"tolerations": func(i int) string {
		return fmt.Sprintf(`{ key = "example.com/t-%d", operator = "Exists", effect = "NoSchedule" }`, i)
	},
}

// items is the HCL list of what the main worker container or the worker template already holds
// for dim, followed by n generated items, one per line.
func items(dim string, base []string, n int, indent string) string {
	var b strings.Builder
	b.WriteString("[\n")
	for _, s := range base {
		b.WriteString(indent + "  " + s + ",\n")
	}
	gen := dims[dim]
	for i := range n {
		b.WriteString(indent + "  " + gen(i) + ",\n")
	}
	b.WriteString(indent + "]")
	return b.String()
}

// configFor is a whole configuration: the provider pointed at a port where nothing listens
// (validate and a plan of a new object never contact the cluster) and one
// kubeinfer_leaderworkerset, lwsfixture.VLLM("bench-slope", 2, 4) as in scripts/bench
// (tfbench.VLLMLeaderWorkerSet), whose worker template has n more items of dim.
func configFor(dim string, n int) string {
	list := func(d, indent string, base ...string) string {
		k := 0
		if d == dim {
			k = n
		}
		return items(d, base, k, indent)
	}
	hfToken := `{ name = "HF_TOKEN", value_from = { secret_key_ref = { name = "hf-token", key = "token" } } }`
	worker := fmt.Sprintf(`{
              name    = "vllm-worker"
              image   = "vllm/vllm-openai:v0.11.0"
              command = ["sh", "-c", "bash /vllm-workspace/examples/online_serving/multi-node-serving.sh worker --ray_address=$(LWS_LEADER_ADDRESS)"]
              env = %s
              resources = {
                limits   = { "nvidia.com/gpu" = "8", memory = "1124Gi", "ephemeral-storage" = "800Gi" }
                requests = { "nvidia.com/gpu" = "8", "ephemeral-storage" = "800Gi", cpu = "125" }
              }
              volume_mounts = [{ mount_path = "/dev/shm", name = "dshm" }]
            }`, list("env", "              ", hfToken))
	tolerations := ""
	if dim == "tolerations" {
		tolerations = "\n          tolerations = " + list("tolerations", "          ")
	}
	workerSpec := "          containers = " + list("containers", "          ", worker) +
		"\n          volumes = " + list("volumes", "          ", `{ name = "dshm", empty_dir = { medium = "Memory", size_limit = "15Gi" } }`) +
		tolerations
	return tfbench.RequiredProviders + "\n" + tfbench.OfflineProvider + "\n" +
		tfbench.VLLMLeaderWorkerSet("slope", "bench-slope", workerSpec)
}
