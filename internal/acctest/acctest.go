package acctest

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/go-logr/logr"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
)

// sharedCluster is the cluster of one profile shared by every test of this
// `go test` process.
type sharedCluster struct {
	once sync.Once
	c    *TestCluster
	err  error
	// startDone is closed when the Start call made by ClusterWith returns;
	// nil until it first runs.
	startDone chan struct{}
}

var (
	sharedMu      sync.Mutex
	shared        = map[Profile]*sharedCluster{}
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
	if os.Getenv("TF_ACC") == "" {
		t.Skip("set TF_ACC=1 to run acceptance tests against the real API server")
	}
	if !mainCalled.Load() {
		t.Fatal("acctest.Cluster: the package's TestMain must call acctest.Main(m), which stops the shared cluster after the tests " +
			"(otherwise etcd and kube-apiserver would outlive the test process):\n\tfunc TestMain(m *testing.M) { acctest.Main(m) }")
	}
	sharedMu.Lock()
	s := shared[p]
	if s == nil {
		s = &sharedCluster{}
		shared[p] = s
	}
	sharedMu.Unlock()
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
	if s.err != nil {
		t.Fatalf("acctest: could not start the %s test cluster: %v", p, s.err)
	}
	return s.c
}

// Main runs the tests and then stops the shared cluster if a test started it.
// Call it from TestMain:
//
//	func TestMain(m *testing.M) { acctest.Main(m) }
//
// On SIGINT or SIGTERM it stops the cluster before exiting, so an interrupted
// `go test` leaves no etcd or kube-apiserver behind.
func Main(m *testing.M) {
	mainCalled.Store(true)
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

	code := m.Run()
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
