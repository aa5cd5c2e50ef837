package acctest

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

// The slowest tests of each run under a CLI, printed after it (go test prints nothing per test
// without -v): where the suite's time goes, to keep `make test` within its budget. A test is
// timed from its first call of ClusterWith to its end; tests that run in parallel overlap.
// Each test's CPU (its CLI commands, the test process and the package's cluster, cpuSample)
// is taken over the same span: a warm run is CPU-bound on 2 cores, so the CPU, not the wall
// time, says what a test costs the whole run. Where tests of a package run in parallel, each
// one's CPU includes the others' over the time they overlap.

var testTimes = struct {
	sync.Mutex
	started map[string]time.Time
	took    map[string]time.Duration
	cpu     map[string]time.Duration
}{started: map[string]time.Time{}, took: map[string]time.Duration{}, cpu: map[string]time.Duration{}}

// timeTest starts timing t's top-level test, once.
func timeTest(t testing.TB) {
	name, _, _ := strings.Cut(t.Name(), "/")
	testTimes.Lock()
	defer testTimes.Unlock()
	if _, ok := testTimes.started[name]; ok {
		return
	}
	start, startCPU := time.Now(), takeCPUSample()
	testTimes.started[name] = start
	t.Cleanup(func() {
		used := takeCPUSample().since(startCPU)
		testTimes.Lock()
		defer testTimes.Unlock()
		testTimes.took[name] = time.Since(start)
		testTimes.cpu[name] = used.cli + used.self + used.clusterTotal()
	})
}

// slowestTests returns the n slowest tests timed since the last call, and forgets them all.
// With EnvCLITimes set, every test's time is appended to that file with ".tests" added to its
// name (package, CLI, test, seconds, CPU seconds), for scripts/test.sh's summary.
func slowestTests(n int, c cli) string {
	testTimes.Lock()
	defer testTimes.Unlock()
	type entry struct {
		name      string
		took, cpu time.Duration
	}
	var all []entry
	var total time.Duration
	for name, d := range testTimes.took {
		all = append(all, entry{name, d, testTimes.cpu[name]})
		total += d
	}
	testTimes.started, testTimes.took, testTimes.cpu = map[string]time.Time{}, map[string]time.Duration{}, map[string]time.Duration{}
	if len(all) == 0 {
		return ""
	}
	if name := os.Getenv(EnvCLITimes); name != "" {
		pkg, _ := os.Getwd()
		if f, err := os.OpenFile(name+".tests", os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
			for _, e := range all {
				fmt.Fprintf(f, "%s\t%s\t%s\t%.1f\t%.1f\n", filepath.Base(pkg), c.path, e.name, e.took.Seconds(), e.cpu.Seconds())
			}
			_ = f.Close()
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i].took > all[j].took })
	parts := make([]string, 0, n)
	for i := 0; i < len(all) && i < n; i++ {
		parts = append(parts, fmt.Sprintf("%s %.1f s", all[i].name, all[i].took.Seconds()))
	}
	return fmt.Sprintf("%d tests, %.0f s in all; slowest: %s", len(all), total.Seconds(), strings.Join(parts, ", "))
}

// Report logs a test's result line (t.Log) and, with EnvCLITimes set, appends it to that file
// with ".reports" added to its name, for scripts/test.sh's summary: the counts of differential
// and parity tests show in `make test`'s output although go test prints nothing of a passing
// package.
func Report(t testing.TB, format string, args ...any) {
	t.Helper()
	line := fmt.Sprintf(format, args...)
	t.Log(line)
	name := os.Getenv(EnvCLITimes)
	if name == "" {
		return
	}
	f, err := os.OpenFile(name+".reports", os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return
	}
	defer f.Close()
	fmt.Fprintf(f, "%s: %s\n", t.Name(), line)
}
