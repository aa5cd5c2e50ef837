package provider

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
)

// Allocation guards of the fixed cost of every Terraform command (issue #28). Allocation counts,
// unlike times, do not depend on what else the machine runs, so these ceilings hold on a busy
// CI machine and a regression of the kind of issue #28 (a ~10,000-attribute schema converted
// by the framework, 263,000 allocations) fails `make test`. Each ceiling is the count measured
// when it was set plus some headroom for small schema changes; raise it only with a reason
// (profile with BenchmarkColdStart first).
const (
	// coldStartAllocsCeiling: a new provider process's first GetProviderSchema, the kinds' node
	// trees included. Measured 2026-12-03 at d641016: 105,053-105,068 in three runs (the
	// framework's conversion before it: 314,982); headroom 14%.
	coldStartAllocsCeiling = 120_000
	// schemaBuildAllocsCeiling: the answer built again with the node trees already built.
	// Measured 2026-12-03 at d641016: 50,627 (before: 260,538); headroom 18%.
	schemaBuildAllocsCeiling = 60_000
	// cachedSchemaAllocsCeiling: a new server in a process that has answered before (the
	// acceptance tests start one per CLI command): the server and the cached answer.
	// Measured 2026-12-03: 18.
	cachedSchemaAllocsCeiling = 100
)

// envColdStartChild makes the test binary measure one cold start and print its allocations.
const envColdStartChild = "KUBEINFER_COLD_START_ALLOCS_CHILD"

// TestColdStartAllocations runs the test binary again (a new process, whose kinds have built
// nothing yet) to count the allocations of the first GetProviderSchema, node trees included.
func TestColdStartAllocations(t *testing.T) {
	if os.Getenv(envColdStartChild) == "1" {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		coldStart(t)
		runtime.ReadMemStats(&after)
		fmt.Printf("cold-start-allocs=%d\n", after.Mallocs-before.Mallocs)
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestColdStartAllocations$", "-test.count=1")
	cmd.Env = append(os.Environ(), envColdStartChild+"=1", "KUBEINFER_TEST_CLIS=")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	_, after, ok := strings.Cut(string(out), "cold-start-allocs=")
	if !ok {
		t.Fatalf("the child printed no count:\n%s", out)
	}
	n, err := strconv.Atoi(strings.Fields(after)[0])
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("cold start: %d allocations (ceiling %d)", n, coldStartAllocsCeiling)
	if n > coldStartAllocsCeiling {
		t.Errorf("a provider process's first GetProviderSchema made %d allocations, above the ceiling of %d: "+
			"profile it (BenchmarkColdStart) before raising the ceiling", n, coldStartAllocsCeiling)
	}
}

// TestSchemaAllocations counts, in this process, the allocations of building the schema answer
// again (testing.AllocsPerRun) and of a new server answering from the cache.
func TestSchemaAllocations(t *testing.T) {
	coldStart(t) // the node trees are built once per process: leave them out of the counts
	build := testing.AllocsPerRun(3, func() { coldStart(t) })
	t.Logf("schema answer: %.0f allocations (ceiling %d)", build, schemaBuildAllocsCeiling)
	if build > schemaBuildAllocsCeiling {
		t.Errorf("building the GetProviderSchema answer made %.0f allocations, above the ceiling of %d", build, schemaBuildAllocsCeiling)
	}
	startAndGetSchema(t)
	cached := testing.AllocsPerRun(10, func() {
		srv := NewServer("test")()
		if _, err := srv.GetProviderSchema(context.Background(), &tfprotov6.GetProviderSchemaRequest{}); err != nil {
			t.Fatal(err)
		}
	})
	t.Logf("new server, cached answer: %.0f allocations (ceiling %d)", cached, cachedSchemaAllocsCeiling)
	if cached > cachedSchemaAllocsCeiling {
		t.Errorf("a new server answering GetProviderSchema from the cache made %.0f allocations, above the ceiling of %d",
			cached, cachedSchemaAllocsCeiling)
	}
}
