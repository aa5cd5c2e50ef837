// Command kubeinfer-testcluster runs the acceptance-test cluster (see
// internal/acctest) in the foreground for `make cluster` and `make demo`:
// by default the "released" profile (etcd, kube-apiserver,
// kube-controller-manager, kube-scheduler, KWOK with simulated GPU nodes and
// the released LeaderWorkerSet v0.9.0 controller and webhooks); with
// -profile newer-fields the API server alone with the CRD that declares the
// LeaderWorkerSet fields newer than the release.
//
// It writes a kubeconfig for a system:masters user to -kubeconfig, prints that
// path and then "ready" on stdout, touches -ready-file (if given) and runs until
// SIGINT or SIGTERM, when it stops the cluster and removes the kubeconfig and
// the ready file.
//
//	go run ./internal/acctest/cmd/kubeinfer-testcluster -ready-file /tmp/cluster.ready
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/go-logr/logr"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/acctest"
)

func main() {
	os.Exit(run())
}

func defaultKubeconfig() string {
	root := os.Getenv("KUBEINFER_CACHE_DIR")
	if root == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			home = os.TempDir()
		}
		root = filepath.Join(home, ".cache", "kubeinfer")
	}
	return filepath.Join(root, "testcluster", "kubeconfig")
}

func run() int {
	// A FlagSet of our own: controller-runtime registers a global -kubeconfig
	// flag on flag.CommandLine.
	fs := flag.NewFlagSet(filepath.Base(os.Args[0]), flag.ContinueOnError)
	kubeconfig := fs.String("kubeconfig", defaultKubeconfig(), "where to write the kubeconfig of the running cluster")
	readyFile := fs.String("ready-file", "", "file to create once the cluster is ready (removed on exit)")
	crds := fs.String("crds", "", "folder of CRD manifests to install (default: internal/acctest/testdata/crds)")
	verbose := fs.Bool("v", false, "copy the output of every component to stderr")
	profileName := fs.String("profile", "released", "what runs beside the API server: released (the released LWS, its controller and webhooks, a scheduler and simulated GPU nodes) or newer-fields (the API server with the CRD that has the newer LWS fields)")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: %s [flags]\n\nRuns the test cluster until SIGINT/SIGTERM. Binaries come from $%s or tools/testcluster/ensure.sh.\n\n", os.Args[0], acctest.EnvTestAssets)
		fs.PrintDefaults()
	}
	if err := fs.Parse(os.Args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return 2
	}
	ctrllog.SetLogger(logr.Discard())

	logf := func(format string, args ...any) {
		fmt.Fprintf(os.Stderr, "kubeinfer-testcluster: "+format+"\n", args...)
	}

	kcPath, err := filepath.Abs(*kubeconfig)
	if err != nil {
		logf("%v", err)
		return 1
	}
	var readyPath string
	if *readyFile != "" {
		if readyPath, err = filepath.Abs(*readyFile); err != nil {
			logf("%v", err)
			return 1
		}
		// Never let a stale ready file from an earlier run fool a waiting script.
		if err := os.Remove(readyPath); err != nil && !os.IsNotExist(err) {
			logf("removing stale ready file: %v", err)
			return 1
		}
	}

	// Catch signals from the start, so an interrupt during startup still stops
	// whatever was started.
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)

	opts := acctest.Options{AttachOutput: *verbose}
	switch *profileName {
	case "released":
		opts.Profile = acctest.ReleasedLWS
	case "newer-fields":
		opts.Profile = acctest.NewerFields
	default:
		logf("unknown -profile %q (released or newer-fields)", *profileName)
		return 2
	}
	if *crds != "" {
		opts.CRDDirectoryPaths = []string{*crds}
	}
	start := time.Now()
	type result struct {
		c   *acctest.TestCluster
		err error
	}
	started := make(chan result, 1)
	go func() {
		c, err := acctest.Start(opts)
		started <- result{c, err}
	}()
	var cluster *acctest.TestCluster
	select {
	case r := <-started:
		if r.err != nil {
			logf("%v", r.err)
			return 1
		}
		cluster = r.c
	case sig := <-sigs:
		logf("got %v while starting; stopping", sig)
		if r := <-started; r.err == nil {
			_ = r.c.Stop()
		}
		return 1
	}
	logf("cluster started in %s", time.Since(start).Round(time.Millisecond))

	cleanup := func() {
		if readyPath != "" {
			_ = os.Remove(readyPath)
		}
		_ = os.Remove(kcPath)
	}
	code := func() int {
		if err := writeFile(kcPath, cluster.Kubeconfig(), 0o600); err != nil {
			logf("writing kubeconfig: %v", err)
			return 1
		}
		fmt.Println(kcPath)
		fmt.Println("ready")
		if readyPath != "" {
			if err := writeFile(readyPath, []byte(kcPath+"\n"), 0o644); err != nil {
				logf("writing ready file: %v", err)
				return 1
			}
		}
		sig := <-sigs
		logf("got %v; stopping", sig)
		return 0
	}()
	cleanup()
	if err := cluster.Stop(); err != nil {
		logf("%v", err)
		return 1
	}
	logf("stopped")
	return code
}

// writeFile writes data to a temporary file next to path and renames it, so
// readers never see a partial file.
func writeFile(path string, data []byte, perm os.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(perm); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}
