// Package acctest is the shared acceptance-test harness: it runs a real
// Kubernetes API server (etcd + kube-apiserver v1.37.2, started with
// controller-runtime's envtest) that acceptance tests and `make cluster` talk
// to.
//
// Tests use Cluster and Main:
//
//	func TestMain(m *testing.M) { acctest.Main(m) }
//
//	func TestAccSomething(t *testing.T) {
//		c := acctest.Cluster(t) // skips unless TF_ACC is set
//		_ = c.KubeconfigPath()
//	}
//
// Programs use Start and (*TestCluster).Stop.
//
// The binaries come from the folder named by KUBEINFER_TEST_ASSETS or, when
// that is unset, from tools/testcluster/ensure.sh, which builds and caches
// them on first use (several minutes on a cold Go build cache).
package acctest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// EnvTestAssets names the environment variable that, when set, points at a
// folder holding the etcd and kube-apiserver binaries; tools/testcluster/ensure.sh
// is not run then.
const EnvTestAssets = "KUBEINFER_TEST_ASSETS"

// Options configures Start. The zero value is what the tests use.
type Options struct {
	// AssetsDir is the folder holding the etcd and kube-apiserver binaries.
	// Empty means $KUBEINFER_TEST_ASSETS or, if that is unset, the output of
	// tools/testcluster/ensure.sh.
	AssetsDir string

	// CRDDirectoryPaths are folders of CRD manifests to install (and wait for)
	// before Start returns. Nil means the profile's: the released LWS CRDs
	// (from the assets folder) for ReleasedLWS, <repo>/internal/acctest/testdata/crds
	// for NewerFields. Missing folders are ignored.
	CRDDirectoryPaths []string

	// Log receives progress messages (the output of ensure.sh). Nil means
	// os.Stderr.
	Log io.Writer

	// AttachOutput copies the output of etcd and kube-apiserver to Log.
	// Without it, only the tail of their output is kept, and reported if
	// starting fails.
	AttachOutput bool

	// Profile chooses what runs beside the API server; the zero value is
	// ReleasedLWS.
	Profile Profile

	// StartTimeout bounds the start of each process (etcd, kube-apiserver)
	// and, separately, the wait for the server to become ready. Zero means
	// 60 s.
	StartTimeout time.Duration
}

// TestCluster is a running test cluster: etcd + kube-apiserver and, in the
// ReleasedLWS profile, the components listed there.
type TestCluster struct {
	env     *envtest.Environment
	cfg     *rest.Config
	profile Profile

	// components run beside the API server, in start order.
	components []*component

	kubeconfig     []byte
	kubeconfigDir  string
	kubeconfigPath string

	dynamic   dynamic.Interface
	clientset kubernetes.Interface

	// kube-apiserver after KillAPIServer: its first pid and command line,
	// and the replacement RestartAPIServer started.
	apiMu         sync.Mutex
	apiServerPID  int
	apiServerArgs []string
	apiServer     *component
	// supervising is closed by Stop; the supervisor KillAPIServer starts ends with it.
	supervising    chan struct{}
	supervisorDone chan struct{}

	stopOnce sync.Once
	stopErr  error
}

// RESTConfig returns a copy of the admin (system:masters) client config.
func (c *TestCluster) RESTConfig() *rest.Config { return rest.CopyConfig(c.cfg) }

// KubeconfigPath returns the path of a kubeconfig file for a user in the
// system:masters group. The file is removed by Stop.
func (c *TestCluster) KubeconfigPath() string { return c.kubeconfigPath }

// Kubeconfig returns the contents of the file at KubeconfigPath.
func (c *TestCluster) Kubeconfig() []byte { return bytes.Clone(c.kubeconfig) }

// Dynamic returns a dynamic client using the admin config.
func (c *TestCluster) Dynamic() dynamic.Interface { return c.dynamic }

// Clientset returns a typed client using the admin config.
func (c *TestCluster) Clientset() kubernetes.Interface { return c.clientset }

// Profile returns the profile the cluster was started with.
func (c *TestCluster) Profile() Profile { return c.profile }

// Stop stops the components, kube-apiserver and etcd and removes their data
// and the kubeconfig file. It is safe to call more than once.
func (c *TestCluster) Stop() error {
	c.stopOnce.Do(func() {
		var errs []error
		c.stopSupervisor()
		for i := len(c.components) - 1; i >= 0; i-- {
			c.components[i].stop(10 * time.Second)
		}
		c.stopRestartedAPIServer()
		if c.env != nil {
			if err := c.env.Stop(); err != nil {
				errs = append(errs, fmt.Errorf("stopping etcd/kube-apiserver: %w", err))
			}
		}
		if c.kubeconfigDir != "" {
			if err := os.RemoveAll(c.kubeconfigDir); err != nil {
				errs = append(errs, err)
			}
		}
		c.stopErr = errors.Join(errs...)
	})
	return c.stopErr
}

// Start starts etcd and kube-apiserver, installs the CRDs, waits until the
// server reports ready and returns the running cluster. The caller must call
// Stop.
func Start(opts Options) (*TestCluster, error) {
	logw := opts.Log
	if logw == nil {
		logw = os.Stderr
	}
	timeout := opts.StartTimeout
	if timeout <= 0 {
		timeout = 60 * time.Second
	}

	assets := opts.AssetsDir
	if assets == "" {
		var err error
		if assets, err = AssetsDir(logw); err != nil {
			return nil, err
		}
	}
	etcdPath := filepath.Join(assets, "etcd")
	apiServerPath := filepath.Join(assets, "kube-apiserver")
	for _, p := range []string{etcdPath, apiServerPath} {
		if fi, err := os.Stat(p); err != nil || fi.IsDir() || fi.Mode()&0o111 == 0 {
			return nil, fmt.Errorf("acctest: %s is not an executable file (assets folder %s; set %s or run tools/testcluster/ensure.sh)", p, assets, EnvTestAssets)
		}
	}

	crdPaths := opts.CRDDirectoryPaths
	if crdPaths == nil {
		switch opts.Profile {
		case ReleasedLWS:
			crdPaths = []string{filepath.Join(assets, lwsCRDsDir)}
		case NewerFields:
			if root, err := RepoRoot(); err == nil {
				crdPaths = []string{filepath.Join(root, "internal", "acctest", "testdata", "crds")}
			}
		}
	}

	etcdOut := &tailBuffer{max: 4 << 10}
	apiOut := &tailBuffer{max: 16 << 10}
	var etcdW, apiW io.Writer = etcdOut, apiOut
	if opts.AttachOutput {
		etcdW = io.MultiWriter(etcdOut, logw)
		apiW = io.MultiWriter(apiOut, logw)
	}

	useExisting := false
	env := &envtest.Environment{
		BinaryAssetsDirectory:    assets,
		CRDDirectoryPaths:        crdPaths,
		ErrorIfCRDPathMissing:    false,
		UseExistingCluster:       &useExisting,
		ControlPlaneStartTimeout: timeout,
		ControlPlaneStopTimeout:  30 * time.Second,
	}
	// Explicit paths win over KUBEBUILDER_ASSETS / TEST_ASSET_* that envtest
	// would otherwise honour.
	env.ControlPlane.Etcd = &envtest.Etcd{Path: etcdPath, Out: etcdW, Err: etcdW}
	env.ControlPlane.APIServer = &envtest.APIServer{Path: apiServerPath, Out: apiW, Err: apiW}
	if opts.Profile == ReleasedLWS {
		// As on managed GPU clusters: pods that request nvidia.com/gpu get a
		// toleration of the GPU nodes' taint of the same name.
		env.ControlPlane.APIServer.Configure().Append("enable-admission-plugins", "ExtendedResourceToleration")
		// The ServiceAccount admission plugin, which envtest disables by default (no
		// controller creates the default service accounts there), is on, as on every real
		// cluster: here the service account controller runs, and a pod that names a
		// ServiceAccount that does not exist is refused (the waits end on that refusal).
		env.ControlPlane.APIServer.Configure().Disable("disable-admission-plugins")
	}
	// Otherwise the default flags and admission plugins. etcd runs with --unsafe-no-fsync.

	if _, err := os.Stat(filepath.Join(assets, "kube-controller-manager")); err != nil {
		return nil, fmt.Errorf("acctest: kube-controller-manager is missing from the assets folder %s (run tools/testcluster/ensure.sh)", assets)
	}
	if opts.Profile == ReleasedLWS {
		for _, name := range []string{"kube-scheduler", "kwok", lwsControllerName} {
			if fi, err := os.Stat(filepath.Join(assets, name)); err != nil || fi.IsDir() {
				return nil, fmt.Errorf("acctest: %s is missing from the assets folder %s (run tools/testcluster/ensure.sh)", name, assets)
			}
		}
		// envtest installs the release's webhook configurations pointing at
		// a local port with a generated serving certificate; the LWS
		// controller-manager serves them there.
		mutating, validating, err := lwsWebhooks(assets)
		if err != nil {
			return nil, fmt.Errorf("acctest: %w", err)
		}
		env.WebhookInstallOptions = envtest.WebhookInstallOptions{
			MutatingWebhooks:   mutating,
			ValidatingWebhooks: validating,
			LocalServingHost:   "127.0.0.1",
		}
	}

	c := &TestCluster{env: env, profile: opts.Profile}
	cfg, err := env.Start()
	if err != nil {
		_ = c.Stop()
		return nil, fmt.Errorf("acctest: starting etcd + kube-apiserver from %s: %w%s%s", assets, err,
			etcdOut.report("etcd"), apiOut.report("kube-apiserver"))
	}
	c.cfg = rest.CopyConfig(cfg)

	if err := c.init(timeout); err != nil {
		_ = c.Stop()
		return nil, fmt.Errorf("acctest: %w%s", err, apiOut.report("kube-apiserver"))
	}
	if err := c.startComponents(assets, logw, opts.AttachOutput, 2*timeout); err != nil {
		_ = c.Stop()
		return nil, fmt.Errorf("acctest: starting the %s profile: %w", opts.Profile, err)
	}
	return c, nil
}

func (c *TestCluster) init(timeout time.Duration) error {
	var err error
	if c.clientset, err = kubernetes.NewForConfig(c.RESTConfig()); err != nil {
		return fmt.Errorf("creating clientset: %w", err)
	}
	if c.dynamic, err = dynamic.NewForConfig(c.RESTConfig()); err != nil {
		return fmt.Errorf("creating dynamic client: %w", err)
	}

	user, err := c.env.AddUser(envtest.User{Name: "kubeinfer-admin", Groups: []string{"system:masters"}}, nil)
	if err != nil {
		return fmt.Errorf("adding kubeconfig user: %w", err)
	}
	if c.kubeconfig, err = user.KubeConfig(); err != nil {
		return fmt.Errorf("building kubeconfig: %w", err)
	}
	if c.kubeconfigDir, err = os.MkdirTemp("", "kubeinfer-acctest-"); err != nil {
		return err
	}
	c.kubeconfigPath = filepath.Join(c.kubeconfigDir, "kubeconfig")
	if err := os.WriteFile(c.kubeconfigPath, c.kubeconfig, 0o600); err != nil {
		return err
	}

	// envtest waits for /healthz and the default namespace; also wait for
	// /readyz, which covers every post-start hook.
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	var last error
	for {
		body, err := c.clientset.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(ctx)
		if err == nil && strings.TrimSpace(string(body)) == "ok" {
			return nil
		}
		if err != nil {
			last = err
		} else {
			last = fmt.Errorf("/readyz said %q", body)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("kube-apiserver not ready after %s: %v", timeout, last)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

var (
	assetsOnce sync.Once
	assetsDir  string
	assetsErr  error
)

// AssetsDir returns the folder holding etcd and kube-apiserver:
// $KUBEINFER_TEST_ASSETS if set, otherwise the output of
// tools/testcluster/ensure.sh (which builds missing binaries; its progress is
// written to logw). The ensure.sh result is memoised per process.
func AssetsDir(logw io.Writer) (string, error) {
	if dir := os.Getenv(EnvTestAssets); dir != "" {
		return filepath.Abs(dir)
	}
	assetsOnce.Do(func() {
		assetsDir, assetsErr = runEnsure(logw)
	})
	return assetsDir, assetsErr
}

func runEnsure(logw io.Writer) (string, error) {
	if logw == nil {
		logw = os.Stderr
	}
	root, err := RepoRoot()
	if err != nil {
		return "", fmt.Errorf("acctest: %w; set %s to a folder holding etcd and kube-apiserver", err, EnvTestAssets)
	}
	script := filepath.Join(root, "tools", "testcluster", "ensure.sh")
	var stdout bytes.Buffer
	cmd := exec.Command("bash", script)
	cmd.Dir = root
	cmd.Stdout = &stdout
	cmd.Stderr = logw
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("acctest: %s failed (set %s to skip it): %w", script, EnvTestAssets, err)
	}
	dir := strings.TrimSpace(stdout.String())
	if dir == "" || !filepath.IsAbs(dir) {
		return "", fmt.Errorf("acctest: %s printed %q, want an absolute folder path", script, stdout.String())
	}
	return dir, nil
}

// RepoRoot returns the root of the provider's source tree: found from the
// location of this source file, or else by walking up from the working
// directory to a folder holding tools/testcluster/ensure.sh.
func RepoRoot() (string, error) {
	isRoot := func(dir string) bool {
		fi, err := os.Stat(filepath.Join(dir, "tools", "testcluster", "ensure.sh"))
		return err == nil && !fi.IsDir()
	}
	if _, file, _, ok := runtime.Caller(0); ok && filepath.IsAbs(file) {
		if dir := filepath.Join(filepath.Dir(file), "..", ".."); isRoot(dir) {
			return filepath.Clean(dir), nil
		}
	}
	if wd, err := os.Getwd(); err == nil {
		for dir := wd; ; dir = filepath.Dir(dir) {
			if isRoot(dir) {
				return dir, nil
			}
			if filepath.Dir(dir) == dir {
				break
			}
		}
	}
	return "", errors.New("cannot find the repository root (a folder holding tools/testcluster/ensure.sh)")
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	if over := len(b.buf) - b.max; over > 0 {
		b.buf = append(b.buf[:0], b.buf[over:]...)
	}
	return len(p), nil
}

func (b *tailBuffer) report(name string) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := strings.TrimSpace(string(b.buf))
	if out == "" {
		return ""
	}
	return fmt.Sprintf("\n--- last output of %s ---\n%s", name, out)
}
