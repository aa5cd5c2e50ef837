package acctest

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/go-logr/logr"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
)

// sharedCluster is a cluster shared by every test of this `go test` process (and by its runs
// under each CLI of EnvCLIs).
type sharedCluster struct {
	once sync.Once
	c    *TestCluster
	err  error
	// startDone is closed when the Start call made by start returns; nil until it first runs.
	startDone chan struct{}
}

// sharedKey names a shared cluster: the profile's own (name "") or one of a set that a test
// asks for by name (ClustersNamed).
type sharedKey struct {
	profile Profile
	name    string
}

var (
	sharedMu      sync.Mutex
	shared        = map[sharedKey]*sharedCluster{}
	sharedStopped bool

	mainCalled atomic.Bool
)

// Cluster returns the ReleasedLWS cluster shared by every test of this
// `go test` process (the released LeaderWorkerSet with its controller and
// webhooks, a scheduler and simulated GPU nodes), starting it on first use.
// It skips the test unless TF_ACC is set, and fails it if the cluster cannot
// be started. The package's TestMain must call Main, which stops the cluster
// when the tests are done.
func Cluster(t testing.TB) *TestCluster { t.Helper(); return ClusterWith(t, ReleasedLWS) }

// ClusterWith is Cluster for the given profile. Each profile's cluster is
// started at most once per process.
func ClusterWith(t testing.TB, p Profile) *TestCluster {
	t.Helper()
	return ClustersNamed(t, p, "")[0]
}

// ClustersNamed returns clusters of profile p, one per name, shared by every test of this
// process as Cluster's is (a test that runs under each CLI of EnvCLIs starts them once), and
// starts the ones not yet running side by side. The name "" is the profile's own cluster.
func ClustersNamed(t testing.TB, p Profile, names ...string) []*TestCluster {
	t.Helper()
	if os.Getenv("TF_ACC") == "" {
		t.Skip("set TF_ACC=1 to run acceptance tests against the real API server")
	}
	if !mainCalled.Load() {
		t.Fatal("acctest.Cluster: the package's TestMain must call acctest.Main(m), which stops the shared cluster after the tests " +
			"(otherwise etcd and kube-apiserver would outlive the test process):\n\tfunc TestMain(m *testing.M) { acctest.Main(m) }")
	}
	timeTest(t)
	entries := make([]*sharedCluster, len(names))
	sharedMu.Lock()
	for i, name := range names {
		key := sharedKey{p, name}
		if shared[key] == nil {
			shared[key] = &sharedCluster{}
		}
		entries[i] = shared[key]
	}
	sharedMu.Unlock()
	var wg sync.WaitGroup
	for _, s := range entries {
		wg.Go(func() { s.start(t, p) })
	}
	wg.Wait()
	clusters := make([]*TestCluster, len(names))
	for i, s := range entries {
		if s.err != nil {
			what := p.String()
			if names[i] != "" {
				what += " " + names[i]
			}
			t.Fatalf("acctest: could not start the %s test cluster: %v", what, s.err)
		}
		clusters[i] = s.c
	}
	return clusters
}

// start starts the cluster once; later calls wait for the first to finish.
func (s *sharedCluster) start(t testing.TB, p Profile) {
	s.once.Do(func() {
		sharedMu.Lock()
		s.startDone = make(chan struct{})
		sharedMu.Unlock()
		defer close(s.startDone)
		start := time.Now()
		c, err := Start(Options{Profile: p})
		if err == nil {
			t.Logf("acctest: started the %s test cluster in %s (kubeconfig: %s)", p, time.Since(start).Round(time.Millisecond), c.KubeconfigPath())
		}
		sharedMu.Lock()
		defer sharedMu.Unlock()
		s.c, s.err = c, err
		if err == nil && sharedStopped {
			// Main is already shutting down (e.g. on a signal).
			_ = c.Stop()
			s.c, s.err = nil, fmt.Errorf("the test process is shutting down")
		}
	})
}

// Main runs the tests and then stops the shared cluster if a test started it.
// Call it from TestMain:
//
//	func TestMain(m *testing.M) { acctest.Main(m) }
//
// On SIGINT or SIGTERM it stops the cluster before exiting, so an interrupted
// `go test` leaves no etcd or kube-apiserver behind.
func Main(m *testing.M) {
	serveProviderIfAsked()
	mainCalled.Store(true)
	mainM = m
	// envtest logs through controller-runtime's logger; without a logger it
	// prints a warning with a stack trace after 30 s.
	ctrllog.SetLogger(logr.Discard())

	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		sig, ok := <-sigs
		if !ok {
			return
		}
		fmt.Fprintf(os.Stderr, "acctest: got %v, stopping the test cluster\n", sig)
		sharedMu.Lock()
		sharedStopped = true
		var starting []chan struct{}
		for _, s := range shared {
			if s.startDone != nil {
				starting = append(starting, s.startDone)
			}
		}
		sharedMu.Unlock()
		// A start in progress stops what it started once it returns (it
		// sees sharedStopped); give it a bounded time to do so.
		deadline := time.After(90 * time.Second)
		for _, done := range starting {
			select {
			case <-done:
			case <-deadline:
			}
		}
		_ = stopShared()
		os.Exit(130)
	}()

	code := runUnderCLIs(m)
	signal.Stop(sigs)
	if err := stopShared(); err != nil {
		fmt.Fprintf(os.Stderr, "acctest: stopping the test cluster: %v\n", err)
		if code == 0 {
			code = 1
		}
	}
	os.Exit(code)
}

func stopShared() error {
	sharedMu.Lock()
	defer sharedMu.Unlock()
	sharedStopped = true
	var errs []error
	for _, s := range shared {
		if s.c != nil {
			errs = append(errs, s.c.Stop())
		}
	}
	return errors.Join(errs...)
}

// EnvCLIs lists the CLIs the acceptance tests run under, one after another in the same test
// process, so that each profile's cluster starts once for all of them: whitespace-separated
// entries KIND=PATH or KIND=PATH=RUN, where KIND is terraform or tofu and RUN, if given, is a
// -run pattern that limits that CLI's run to the tests it matches (a smoke run). The first CLI
// runs every test of the package; the others run the acceptance tests (TestAcc*, or the -run
// pattern given to go test). Unset, the tests run once, under TF_ACC_TERRAFORM_PATH or the
// terraform on PATH, as terraform-plugin-testing finds it.
const EnvCLIs = "KUBEINFER_TEST_CLIS"

// EnvCLITimes names a file to which each run under a CLI of EnvCLIs appends one line:
// package, CLI path, seconds, result, and the CPU seconds of the CLI's commands, of the test
// process and of the cluster's processes, tab-separated (scripts/test.sh sums them per CLI).
const EnvCLITimes = "KUBEINFER_TEST_CLI_TIMES"

// cli is one entry of EnvCLIs.
type cli struct {
	kind, path, run string
}

// String names the CLI by its file name (terraform-v1.14.3), or by its path when the file
// name says no more than the kind.
func (c cli) String() string {
	if base := filepath.Base(c.path); base != c.kind {
		return base
	}
	return c.path
}

// parseCLIs reads EnvCLIs.
func parseCLIs(v string) ([]cli, error) {
	var out []cli
	for _, entry := range strings.Fields(v) {
		parts := strings.SplitN(entry, "=", 3)
		if len(parts) < 2 || (parts[0] != "terraform" && parts[0] != "tofu") || parts[1] == "" {
			return nil, fmt.Errorf("%s: %q is not terraform=PATH, tofu=PATH or KIND=PATH=RUN", EnvCLIs, entry)
		}
		c := cli{kind: parts[0], path: parts[1]}
		if len(parts) == 3 {
			c.run = parts[2]
		}
		out = append(out, c)
	}
	return out, nil
}

// cliRun counts the runs under the CLIs of EnvCLIs: 0 during the first.
var cliRun atomic.Int32

// SkipAfterFirstCLI skips a test that runs no Terraform CLI (it compares the provider's
// validation with dry-run requests, or checks the cluster itself) in every run but the first
// when the tests run under several CLIs (EnvCLIs): its result cannot depend on the CLI.
func SkipAfterFirstCLI(t testing.TB) {
	t.Helper()
	if cliRun.Load() > 0 {
		t.Skip("runs no Terraform CLI: it ran under the first CLI of " + EnvCLIs)
	}
}

// FirstCLIOnly skips, in every run but the first (EnvCLIs), a test or step whose subject is what
// the cluster does over time, not how a CLI drives the provider: a controller rolling groups
// over, pods restarted, the API server's bootstrap ensurer rewriting a level a minute later. The
// CLI's part in such a test is plans and applies that the other tests run under every CLI, so a
// second CLI would only repeat the controller's work (and its minutes) on the same two cores.
// A smoke run (a CLI of EnvCLIs given its own -run pattern) runs the tests its pattern names.
// subject says what the test watches, for the skip message.
func FirstCLIOnly(t testing.TB, subject string) {
	t.Helper()
	if !IsFirstCLI() && !smokeRun.Load() {
		t.Skip(subject + ": the cluster's behaviour, not the CLI's; it ran under the first CLI of " + EnvCLIs)
	}
}

// SampleAfterFirstCLI skips, in every run but the first (EnvCLIs), all but every nth case of a
// table of plan-time rule checks (i is the case's index). The rules are the provider's and each
// ran under the first CLI; under the other CLIs a sample shows that the CLI shows the
// diagnostics on their attributes, without paying an init and a plan for every rule again.
func SampleAfterFirstCLI(t testing.TB, i, n int) {
	t.Helper()
	if !IsFirstCLI() && n > 1 && i%n != 0 {
		t.Skipf("a plan-time rule of the provider: every case ran under the first CLI of %s, every %dth runs here", EnvCLIs, n)
	}
}

// FirstOfEachKindOnly skips a test in every run but the first under each kind of CLI of
// EnvCLIs (the first Terraform and OpenTofu): for a long round trip of every field whose CLI
// part is how the CLI's core carries values, which the releases of one CLI share. Under the
// other releases the lifecycle tests drive the same plan, apply and import paths.
func FirstOfEachKindOnly(t testing.TB, subject string) {
	t.Helper()
	if repeatsKind.Load() {
		t.Skip(subject + ": it ran under the first CLI of its kind in " + EnvCLIs)
	}
}

// SameCLIPathAs skips, in every run but the first (EnvCLIs), a test of one kind whose CLI part
// is the same as that of another kind's test, which runs under the other CLIs (named by
// coveredBy). The provider's engine (server-side apply, field ownership, the checks before a
// create) is one for all kinds, and what a CLI adds (carrying state and private data from plan
// to apply, showing warnings and errors) does not depend on the kind; under the first CLI each
// kind still runs the whole test against the real API server.
func SameCLIPathAs(t testing.TB, coveredBy string) {
	t.Helper()
	if !IsFirstCLI() && !smokeRun.Load() {
		t.Skip("its CLI part is " + coveredBy + "'s, which runs under this CLI; the whole test ran under the first CLI of " + EnvCLIs)
	}
}

// smokeRun is whether the current run of EnvCLIs has a -run pattern of its own.
var smokeRun atomic.Bool

// repeatsKind is whether an earlier run of EnvCLIs was under a CLI of the current run's kind.
var repeatsKind atomic.Bool

// IsFirstCLI reports whether the tests run under the first CLI of EnvCLIs (or under one CLI),
// for a test that leaves out one step elsewhere (see FirstCLIOnly).
func IsFirstCLI() bool { return cliRun.Load() == 0 }

// runUnderCLIs runs the tests once, or once per CLI of EnvCLIs (testing.M.Run may be called
// more than once: go.dev/issue/23129), and returns the exit code of the first failing run.
func runUnderCLIs(m *testing.M) int {
	if !flag.Parsed() {
		flag.Parse()
	}
	clis, err := parseCLIs(os.Getenv(EnvCLIs))
	if err != nil {
		fmt.Fprintln(os.Stderr, "acctest:", err)
		return 2
	}
	if len(clis) == 0 {
		startCPU := takeCPUSample()
		rc := m.Run()
		fmt.Printf("=== acctest: %s\n", takeCPUSample().since(startCPU))
		if slow := slowestTests(8, cli{path: "the CLI on PATH"}); slow != "" {
			fmt.Printf("=== acctest: %s\n", slow)
		}
		return rc
	}
	runFlag := flag.Lookup("test.run")
	userRun := ""
	if runFlag != nil {
		userRun = runFlag.Value.String()
	}
	code := 0
	for i, c := range clis {
		cliRun.Store(int32(i))
		repeatsKind.Store(slices.ContainsFunc(clis[:i], func(e cli) bool { return e.kind == c.kind }))
		smokeRun.Store(c.run != "")
		pattern := userRun
		switch {
		case c.run != "":
			pattern = c.run
		case i > 0 && userRun == "":
			pattern = "^TestAcc"
		}
		if runFlag != nil {
			if err := runFlag.Value.Set(pattern); err != nil {
				fmt.Fprintln(os.Stderr, "acctest:", err)
				return 2
			}
		}
		if i > 0 && !matchesAnyTest(m, pattern) {
			// testing.M.Run would print "no tests to run", and go test would then report the
			// whole package so, although the other CLIs' runs ran its tests.
			fmt.Printf("=== acctest: no test of this package matches %q: nothing to run under %s\n", pattern, c)
			continue
		}
		useCLI(c)
		fmt.Printf("=== acctest: the tests under %s (%s)\n", c, c.kind)
		start, startCPU := time.Now(), takeCPUSample()
		rc := m.Run()
		took, cpu := time.Since(start), takeCPUSample().since(startCPU)
		result := "ok"
		if rc != 0 {
			result = "FAIL"
			if code == 0 {
				code = rc
			}
		}
		fmt.Printf("=== acctest: under %s (%s): %s in %.1f s; %s\n", c, c.kind, result, took.Seconds(), cpu)
		if slow := slowestTests(8, c); slow != "" {
			fmt.Printf("=== acctest: under %s: %s\n", c, slow)
		}
		recordCLITime(c, took, result, cpu)
	}
	return code
}

// useCLI points terraform-plugin-testing at the CLI. OpenTofu resolves the provider on
// registry.opentofu.org; without these terraform-plugin-testing's configuration uses the
// legacy "-" namespace there.
func useCLI(c cli) {
	_ = os.Setenv("TF_ACC_TERRAFORM_PATH", c.path)
	if c.kind == "tofu" {
		_ = os.Setenv("TF_ACC_PROVIDER_HOST", "registry.opentofu.org")
		_ = os.Setenv("TF_ACC_PROVIDER_NAMESPACE", "kubeinfer")
	} else {
		_ = os.Unsetenv("TF_ACC_PROVIDER_HOST")
		_ = os.Unsetenv("TF_ACC_PROVIDER_NAMESPACE")
	}
}

func recordCLITime(c cli, took time.Duration, result string, cpu cpuUse) {
	name := os.Getenv(EnvCLITimes)
	if name == "" {
		return
	}
	pkg, _ := os.Getwd() // go test runs a package's tests in its folder
	f, err := os.OpenFile(name, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		fmt.Fprintln(os.Stderr, "acctest:", err)
		return
	}
	defer f.Close()
	fmt.Fprintf(f, "%s\t%s\t%.1f\t%s\t%.1f\t%.1f\t%.1f\n", filepath.Base(pkg), c.path, took.Seconds(), result,
		cpu.cli.Seconds(), cpu.self.Seconds(), cpu.clusterTotal().Seconds())
}

// mainM is the testing.M that Main was given.
var mainM *testing.M

// matchesAnyTest reports whether the -run pattern selects a top-level test of m that the -skip
// flag leaves in. testing.M keeps its tests unexported: their names are read by reflection, and
// when that fails (a Go release changed the struct) the answer is true, so the tests run.
func matchesAnyTest(m *testing.M, pattern string) bool {
	run, err := regexp.Compile(strings.Split(pattern, "/")[0])
	if err != nil {
		return true
	}
	var skip *regexp.Regexp
	if f := flag.Lookup("test.skip"); f != nil && f.Value.String() != "" {
		if skip, err = regexp.Compile(strings.Split(f.Value.String(), "/")[0]); err != nil {
			return true
		}
	}
	tests := reflect.ValueOf(m).Elem().FieldByName("tests")
	if !tests.IsValid() || tests.Kind() != reflect.Slice {
		return true
	}
	for i := 0; i < tests.Len(); i++ {
		name := tests.Index(i).FieldByName("Name")
		if !name.IsValid() || name.Kind() != reflect.String {
			return true
		}
		if run.MatchString(name.String()) && (skip == nil || !skip.MatchString(name.String())) {
			return true
		}
	}
	return false
}
