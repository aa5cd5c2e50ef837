package acctest

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// Profile chooses what runs beside etcd and kube-apiserver.
type Profile int

const (
	// ReleasedLWS is a small real cluster running what clusters run today: the
	// released LeaderWorkerSet (sigs.k8s.io/lws v0.9.0: its own CRDs,
	// controller-manager and admission webhooks, installed from the release's
	// manifests), kube-controller-manager, kube-scheduler, and KWOK simulating
	// GPU nodes (see Nodes) on which pods are scheduled and turn Ready without
	// containers.
	ReleasedLWS Profile = iota
	// NewerFields is the API server and kube-controller-manager (for the
	// garbage collector) with the LeaderWorkerSet CRD generated
	// from internal/apis/leaderworkerset/v1, which declares the fields that no
	// released LWS has yet (spec.scheduling, spec.groupIdentity,
	// spec.groupReplacementPolicy, leaderWorkerTemplate.maxGroupRestarts). No
	// LWS controller, scheduler or node runs: tests that wait for a rollout
	// report status themselves.
	NewerFields
)

func (p Profile) String() string {
	switch p {
	case ReleasedLWS:
		return "released LWS"
	case NewerFields:
		return "newer fields"
	}
	return "profile " + strconv.Itoa(int(p))
}

// Assets folder layout written by tools/testcluster/ensure.sh.
const (
	lwsCRDsDir        = "lws/crds"
	lwsWebhooksFile   = "lws/webhook/manifests.yaml"
	kwokStagesDir     = "kwok-stages"
	lwsControllerName = "lws-controller-manager"
)

// lwsPodWebhookSelector restricts the LWS pod webhooks to the pods of
// LeaderWorkerSets, as the release's config/webhook/{mutating,validating}-patch.yaml
// do on top of config/webhook/manifests.yaml (kustomize patches; ensure.sh copies
// only the base file).
var lwsPodWebhookSelector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
	{Key: "leaderworkerset.sigs.k8s.io/name", Operator: metav1.LabelSelectorOpExists},
}}

// lwsWebhooks reads the release's webhook configurations.
func lwsWebhooks(assets string) ([]*admissionv1.MutatingWebhookConfiguration, []*admissionv1.ValidatingWebhookConfiguration, error) {
	path := filepath.Join(assets, lwsWebhooksFile)
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	var mutating []*admissionv1.MutatingWebhookConfiguration
	var validating []*admissionv1.ValidatingWebhookConfiguration
	reader := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	for {
		doc, err := reader.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", path, err)
		}
		var meta metav1.TypeMeta
		if err := yaml.Unmarshal(doc, &meta); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", path, err)
		}
		switch meta.Kind {
		case "MutatingWebhookConfiguration":
			var c admissionv1.MutatingWebhookConfiguration
			if err := yaml.UnmarshalStrict(doc, &c); err != nil {
				return nil, nil, fmt.Errorf("%s: %w", path, err)
			}
			for i := range c.Webhooks {
				if c.Webhooks[i].Name == "mpod.kb.io" {
					c.Webhooks[i].ObjectSelector = lwsPodWebhookSelector
				}
			}
			mutating = append(mutating, &c)
		case "ValidatingWebhookConfiguration":
			var c admissionv1.ValidatingWebhookConfiguration
			if err := yaml.UnmarshalStrict(doc, &c); err != nil {
				return nil, nil, fmt.Errorf("%s: %w", path, err)
			}
			for i := range c.Webhooks {
				if c.Webhooks[i].Name == "vpod.kb.io" {
					c.Webhooks[i].ObjectSelector = lwsPodWebhookSelector
				}
			}
			validating = append(validating, &c)
		}
	}
	if len(mutating) == 0 || len(validating) == 0 {
		return nil, nil, fmt.Errorf("%s: want a mutating and a validating webhook configuration", path)
	}
	return mutating, validating, nil
}

// component is one control-plane process of the test cluster.
type component struct {
	name string
	cmd  *exec.Cmd
	out  *tailBuffer
	done chan struct{}
	err  error // set before done is closed
	// logFile is the whole log ($KUBEINFER_TEST_COMPONENT_LOGS), closed on exit.
	logFile *os.File
}

// startComponent runs path with args; its output is kept (the tail) and, with
// attach, copied to logw.
func startComponent(name, path string, args []string, logw io.Writer, attach bool) (*component, error) {
	c := &component{name: name, out: &tailBuffer{max: 16 << 10}, done: make(chan struct{})}
	var w io.Writer = c.out
	if attach {
		w = io.MultiWriter(c.out, prefixWriter(logw, name+": "))
	}
	if dir := os.Getenv("KUBEINFER_TEST_COMPONENT_LOGS"); dir != "" {
		// Whole logs, for a failure the kept tail does not explain. Appended,
		// so a component restarted after a fault keeps its earlier output.
		f, err := os.OpenFile(filepath.Join(dir, name+".log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
		if err != nil {
			return nil, fmt.Errorf("component log of %s: %w", name, err)
		}
		w = io.MultiWriter(w, f)
		c.logFile = f
	}
	c.cmd = exec.Command(path, args...)
	c.cmd.Stdout, c.cmd.Stderr = w, w
	// Its own process group, so a Ctrl-C of `make cluster` reaches the harness
	// first and the harness stops everything in order; and killed with the
	// test process if that dies without stopping the cluster.
	c.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := c.cmd.Start(); err != nil {
		if c.logFile != nil {
			_ = c.logFile.Close()
		}
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	go func() {
		c.err = c.cmd.Wait()
		if c.logFile != nil {
			_ = c.logFile.Close()
		}
		close(c.done)
	}()
	return c, nil
}

// exited reports the process' exit when it has stopped.
func (c *component) exited() error {
	select {
	case <-c.done:
		return fmt.Errorf("%s exited: %v%s", c.name, c.err, c.out.report(c.name))
	default:
		return nil
	}
}

// stop sends SIGTERM and, after grace, SIGKILL.
func (c *component) stop(grace time.Duration) {
	select {
	case <-c.done:
		return
	default:
	}
	_ = c.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-c.done:
	case <-time.After(grace):
		_ = c.cmd.Process.Kill()
		<-c.done
	}
}

// freePort returns a TCP port on 127.0.0.1 that nothing listens on now.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	addr, ok := l.Addr().(*net.TCPAddr)
	if !ok {
		return 0, fmt.Errorf("listening on 127.0.0.1:0 gave a %T address", l.Addr())
	}
	return addr.Port, nil
}

// startComponents starts, after the API server, the components of the profile:
// kube-controller-manager in every profile (the garbage collector, which foreground
// deletion needs, and the namespace and service account controllers), and for
// ReleasedLWS the rest (see ReleasedLWS). It waits until the nodes are Ready and the
// LWS webhooks answer.
func (c *TestCluster) startComponents(assets string, logw io.Writer, attach bool, timeout time.Duration) error {
	kc := filepath.Join(c.kubeconfigDir, "kubeconfig")
	bin := func(name string) string { return filepath.Join(assets, name) }
	start := func(name string, args []string) error {
		p, err := startComponent(name, bin(name), args, logw, attach)
		if err != nil {
			return err
		}
		c.components = append(c.components, p)
		return nil
	}

	kcmPort, err := freePort()
	if err != nil {
		return err
	}
	// Only the controllers LeaderWorkerSets rely on: statefulset (the groups),
	// garbage collector (cascading and foreground deletes), node lifecycle (it
	// lifts a new node's not-ready taint), service accounts and namespaces (for
	// `make cluster` users). The others (endpoint slices for the groups' headless
	// services, resource quota's periodic discovery, ...) only cost the API server
	// CPU. Leader election is off: one instance per cluster.
	if err := start("kube-controller-manager", []string{
		"--kubeconfig=" + kc,
		"--authentication-kubeconfig=" + kc,
		"--authorization-kubeconfig=" + kc,
		"--leader-elect=false",
		"--bind-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(kcmPort),
		"--cert-dir=" + filepath.Join(c.kubeconfigDir, "kcm-certs"),
		"--controllers=statefulset-controller,garbage-collector-controller,node-lifecycle-controller,serviceaccount-controller,namespace-controller",
		"--use-service-account-credentials=false",
		"--cluster-name=kubeinfer-test",
		"--concurrent-statefulset-syncs=10",
		"--concurrent-gc-syncs=20",
		"--v=1",
	}); err != nil {
		return err
	}
	if c.profile != ReleasedLWS {
		return nil
	}

	schedPort, err := freePort()
	if err != nil {
		return err
	}
	if err := start("kube-scheduler", []string{
		"--kubeconfig=" + kc,
		"--authentication-kubeconfig=" + kc,
		"--authorization-kubeconfig=" + kc,
		"--leader-elect=false",
		"--bind-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(schedPort),
		"--cert-dir=" + filepath.Join(c.kubeconfigDir, "scheduler-certs"),
		"--v=1",
	}); err != nil {
		return err
	}

	stages, err := filepath.Glob(filepath.Join(assets, kwokStagesDir, "*.yaml"))
	if err != nil || len(stages) == 0 {
		return fmt.Errorf("no KWOK stages in %s (run tools/testcluster/ensure.sh)", filepath.Join(assets, kwokStagesDir))
	}
	if err := start("kwok", []string{
		"--kubeconfig=" + kc,
		"--config=" + strings.Join(stages, ","),
		"--manage-all-nodes=false",
		"--manage-nodes-with-annotation-selector=" + kwokNodeAnnotation + "=fake",
		"--node-lease-duration-seconds=40",
		"--cidr=10.244.0.1/16",
		"--node-ip=10.0.0.1",
	}); err != nil {
		return err
	}

	lwsConfig := filepath.Join(c.kubeconfigDir, "lws-config.yaml")
	opts := c.env.WebhookInstallOptions
	if err := os.WriteFile(lwsConfig, []byte(fmt.Sprintf(`apiVersion: config.lws.x-k8s.io/v1alpha1
kind: Configuration
leaderElection:
  leaderElect: false
internalCertManagement:
  enable: false
webhook:
  host: %s
  port: %d
  certDir: %s
metrics:
  bindAddress: "0"
health:
  healthProbeBindAddress: "0"
`, opts.LocalServingHost, opts.LocalServingPort, opts.LocalServingCertDir)), 0o600); err != nil {
		return err
	}
	if err := start(lwsControllerName, []string{"--kubeconfig=" + kc, "--config=" + lwsConfig, "--zap-log-level=info"}); err != nil {
		return err
	}

	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	if err := CreateNodes(ctx, c.clientset, Nodes()); err != nil {
		return err
	}
	if err := c.waitFor(ctx, "the simulated nodes to be Ready", c.nodesReady); err != nil {
		return err
	}
	// The ServiceAccount admission plugin refuses pods until the service account controller has
	// created the namespace's "default" account.
	if err := c.waitFor(ctx, "the default service account", func(ctx context.Context) (bool, error) {
		_, err := c.clientset.CoreV1().ServiceAccounts("default").Get(ctx, "default", metav1.GetOptions{})
		return err == nil, nil
	}); err != nil {
		return err
	}
	return c.waitFor(ctx, "the LeaderWorkerSet webhook to answer", c.lwsWebhookAnswers)
}

// waitFor polls ready until it reports true, a component exits or ctx ends.
func (c *TestCluster) waitFor(ctx context.Context, what string, ready func(context.Context) (bool, error)) error {
	var last error
	for {
		if err := c.exitedComponent(); err != nil {
			return fmt.Errorf("waiting for %s: %w", what, err)
		}
		ok, err := ready(ctx)
		if ok {
			return nil
		}
		last = err
		select {
		case <-ctx.Done():
			return fmt.Errorf("timed out waiting for %s (last: %v)%s", what, last, c.componentReports())
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// exitedComponent returns the exit of the first component that is no longer
// running, or nil. Like componentReports it takes apiMu, under which the
// fault tests' supervisor replaces components.
func (c *TestCluster) exitedComponent() error {
	c.apiMu.Lock()
	defer c.apiMu.Unlock()
	for _, p := range c.components {
		if err := p.exited(); err != nil {
			return err
		}
	}
	return nil
}

func (c *TestCluster) componentReports() string {
	c.apiMu.Lock()
	defer c.apiMu.Unlock()
	var b strings.Builder
	for _, p := range c.components {
		b.WriteString(p.out.report(p.name))
	}
	return b.String()
}

// lwsWebhookAnswers makes a server-side dry-run create of a LeaderWorkerSet,
// which passes both LWS webhooks (defaulting and validation).
func (c *TestCluster) lwsWebhookAnswers(ctx context.Context) (bool, error) {
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "leaderworkerset.x-k8s.io/v1",
		"kind":       "LeaderWorkerSet",
		"metadata":   map[string]any{"name": "webhook-probe", "namespace": "default"},
		"spec": map[string]any{"leaderWorkerTemplate": map[string]any{"workerTemplate": map[string]any{
			"spec": map[string]any{"containers": []any{map[string]any{"name": "c", "image": "busybox"}}},
		}}},
	}}
	gvr := schema.GroupVersionResource{Group: "leaderworkerset.x-k8s.io", Version: "v1", Resource: "leaderworkersets"}
	out, err := c.dynamic.Resource(gvr).Namespace("default").Create(ctx, u, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
	if err != nil {
		return false, err
	}
	// The defaulting webhook ran: the CRD alone sets no startupPolicy.
	if _, found, _ := unstructured.NestedString(out.Object, "spec", "startupPolicy"); !found {
		return false, errors.New("the LWS defaulting webhook did not run")
	}
	return true, nil
}

// prefixWriter prefixes every line written through it.
func prefixWriter(w io.Writer, prefix string) io.Writer {
	return &linePrefixer{w: w, prefix: []byte(prefix), atStart: true}
}

type linePrefixer struct {
	w       io.Writer
	prefix  []byte
	atStart bool
}

func (l *linePrefixer) Write(p []byte) (int, error) {
	var out bytes.Buffer
	for _, b := range p {
		if l.atStart {
			out.Write(l.prefix)
			l.atStart = false
		}
		out.WriteByte(b)
		if b == '\n' {
			l.atStart = true
		}
	}
	if _, err := l.w.Write(out.Bytes()); err != nil {
		return 0, err
	}
	return len(p), nil
}
