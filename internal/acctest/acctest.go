package acctest

import (
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

var (
	sharedOnce    sync.Once
	sharedMu      sync.Mutex
	shared        *TestCluster
	sharedErr     error
	sharedStopped bool
	// startDone is closed when the Start call made by Cluster returns; nil
	// until Cluster first runs.
	startDone chan struct{}

	mainCalled atomic.Bool
)

// Cluster returns the cluster shared by every test of this `go test` process,
// starting it on first use. It skips the test unless TF_ACC is set, and fails
// it if the cluster cannot be started. The package's TestMain must call Main,
// which stops the cluster when the tests are done.
func Cluster(t testing.TB) *TestCluster {
	t.Helper()
	if os.Getenv("TF_ACC") == "" {
		t.Skip("set TF_ACC=1 to run acceptance tests against the real API server")
	}
	if !mainCalled.Load() {
		t.Fatal("acctest.Cluster: the package's TestMain must call acctest.Main(m), which stops the shared cluster after the tests " +
			"(otherwise etcd and kube-apiserver would outlive the test process):\n\tfunc TestMain(m *testing.M) { acctest.Main(m) }")
	}
	sharedOnce.Do(func() {
		sharedMu.Lock()
		startDone = make(chan struct{})
		sharedMu.Unlock()
		defer close(startDone)
		start := time.Now()
		c, err := Start(Options{})
		if err == nil {
			t.Logf("acctest: started etcd + kube-apiserver in %s (kubeconfig: %s)", time.Since(start).Round(time.Millisecond), c.KubeconfigPath())
		}
		sharedMu.Lock()
		defer sharedMu.Unlock()
		shared, sharedErr = c, err
		if err == nil && sharedStopped {
			// Main is already shutting down (e.g. on a signal).
			_ = c.Stop()
			shared, sharedErr = nil, fmt.Errorf("the test process is shutting down")
		}
	})
	if sharedErr != nil {
		t.Fatalf("acctest: could not start the test cluster (etcd + kube-apiserver): %v", sharedErr)
	}
	return shared
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
		starting := startDone
		sharedMu.Unlock()
		if starting != nil {
			// A start in progress stops what it started once it returns
			// (it sees sharedStopped); give it a bounded time to do so.
			select {
			case <-starting:
			case <-time.After(90 * time.Second):
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
	if shared == nil {
		return nil
	}
	return shared.Stop()
}
