package acctest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// This file holds what the fault tests need of the cluster: killing and
// restarting kube-apiserver, and a user outside system:masters (which API
// Priority and Fairness always exempts).

// KillAPIServer kills kube-apiserver with SIGKILL, as a crash or an OOM kill
// would, and returns once the process is gone. etcd, the certificates and the
// other components stay; RestartAPIServer starts it again with the same
// command line, so clients reconnect to the same address with the same
// credentials.
func (c *TestCluster) KillAPIServer() error {
	c.apiMu.Lock()
	defer c.apiMu.Unlock()
	if c.supervising == nil {
		c.supervising, c.supervisorDone = make(chan struct{}), make(chan struct{})
		go c.supervise()
	}
	if c.apiServerArgs == nil {
		pid, args, err := findChild("kube-apiserver")
		if err != nil {
			return err
		}
		c.apiServerPID, c.apiServerArgs = pid, args
	}
	if c.apiServer != nil {
		// A replacement started by RestartAPIServer.
		_ = c.apiServer.cmd.Process.Kill()
		<-c.apiServer.done
		c.apiServer = nil
		return nil
	}
	if c.apiServerPID == 0 {
		return errors.New("kube-apiserver is not running")
	}
	if err := syscall.Kill(c.apiServerPID, syscall.SIGKILL); err != nil {
		return fmt.Errorf("killing kube-apiserver (pid %d): %w", c.apiServerPID, err)
	}
	// envtest's goroutine reaps the process; wait until /proc says it is gone.
	pid := c.apiServerPID
	c.apiServerPID = 0
	deadline := time.Now().Add(10 * time.Second)
	for processAlive(pid) {
		if time.Now().After(deadline) {
			return fmt.Errorf("kube-apiserver (pid %d) still running 10 s after SIGKILL", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return nil
}

// RestartAPIServer starts kube-apiserver again after KillAPIServer, with the
// command line of the first one, and waits until it reports ready.
func (c *TestCluster) RestartAPIServer(ctx context.Context) error {
	c.apiMu.Lock()
	if c.apiServerArgs == nil {
		c.apiMu.Unlock()
		return errors.New("RestartAPIServer: KillAPIServer was not called")
	}
	if c.apiServer != nil || c.apiServerPID != 0 {
		c.apiMu.Unlock()
		return errors.New("RestartAPIServer: kube-apiserver is running")
	}
	p, err := startComponent("kube-apiserver", c.apiServerArgs[0], c.apiServerArgs[1:], os.Stderr, false)
	if err == nil {
		c.apiServer = p
	}
	c.apiMu.Unlock()
	if err != nil {
		return err
	}
	for {
		body, err := c.clientset.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(ctx)
		if err == nil && strings.TrimSpace(string(body)) == "ok" {
			c.apiMu.Lock()
			defer c.apiMu.Unlock()
			return c.restartExitedComponents()
		}
		if exitErr := p.exited(); exitErr != nil {
			return exitErr
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("kube-apiserver not ready after a restart: %v (last: %v)", ctx.Err(), err)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// RestartComponents stops every component beside etcd and kube-apiserver
// (kube-controller-manager and, in the ReleasedLWS profile, kube-scheduler,
// KWOK and the LWS controller) and starts it again with the same command line.
// It returns once the simulated nodes are Ready and the LWS webhooks answer.
//
// A fault test calls it after RestartAPIServer so that each kill is one crash
// of a healthy cluster. Without it the kills add up: client-go's informers
// back off exponentially while the API server is away, up to 30 to 60 s
// between attempts, and forget the backoff only after 2 minutes without a
// failure (k8s.io/client-go@v0.37.2 tools/cache/reflector.go,
// defaultBackoffMax and defaultBackoffReset). With kills a minute apart each
// component then acts on a cache up to a minute old, and a rollout that
// passes through four of them (LWS controller, statefulset controller,
// scheduler, KWOK) took over two minutes. That is the components' recovery,
// not the provider's.
func (c *TestCluster) RestartComponents(ctx context.Context) error {
	c.apiMu.Lock()
	for i, p := range c.components {
		p.stop(5 * time.Second)
		np, err := startComponent(p.name, p.cmd.Path, p.cmd.Args[1:], io.Discard, false)
		if err != nil {
			c.apiMu.Unlock()
			return err
		}
		c.components[i] = np
	}
	c.apiMu.Unlock()
	if c.profile != ReleasedLWS {
		return nil
	}
	if err := c.waitFor(ctx, "the simulated nodes to be Ready after a restart", c.nodesReady); err != nil {
		return err
	}
	return c.waitFor(ctx, "the LeaderWorkerSet webhook to answer after a restart", c.lwsWebhookAnswers)
}

// supervise restarts, every half second, a component that exited (see restartExitedComponents)
// until Stop: once kube-apiserver has been killed, a component may give up on it later than the
// restart.
func (c *TestCluster) supervise() {
	defer close(c.supervisorDone)
	t := time.NewTicker(500 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-c.supervising:
			return
		case <-t.C:
			c.apiMu.Lock()
			if err := c.restartExitedComponents(); err != nil {
				fmt.Fprintf(os.Stderr, "acctest: %v\n", err)
			}
			c.apiMu.Unlock()
		}
	}
}

// stopSupervisor ends supervise, if it runs, before the components are stopped.
func (c *TestCluster) stopSupervisor() {
	c.apiMu.Lock()
	ch, done := c.supervising, c.supervisorDone
	c.apiMu.Unlock()
	if ch != nil {
		close(ch)
		<-done
	}
}

// restartExitedComponents starts again, with the same command line, the components that exited
// while kube-apiserver was away (kube-scheduler may exit when it loses the server), as a node's
// supervisor (kubelet, systemd) would on a real control plane. The caller holds apiMu.
func (c *TestCluster) restartExitedComponents() error {
	for i, p := range c.components {
		exitErr := p.exited()
		if exitErr == nil {
			continue
		}
		fmt.Fprintf(os.Stderr, "acctest: restarting a component that exited while kube-apiserver was down: %v\n", exitErr)
		np, err := startComponent(p.name, p.cmd.Path, p.cmd.Args[1:], io.Discard, false)
		if err != nil {
			return err
		}
		c.components[i] = np
	}
	return nil
}

// stopRestartedAPIServer stops a kube-apiserver started by RestartAPIServer
// (envtest stops only the one it started).
func (c *TestCluster) stopRestartedAPIServer() {
	c.apiMu.Lock()
	defer c.apiMu.Unlock()
	if c.apiServer != nil {
		c.apiServer.stop(10 * time.Second)
		c.apiServer = nil
	}
}

// findChild returns the pid and command line of the only child of this
// process running the named program.
func findChild(name string) (int, []string, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0, nil, err
	}
	self := os.Getpid()
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...; comm may hold spaces, so split after the last ')'.
		i := bytes.LastIndexByte(stat, ')')
		if i < 0 {
			continue
		}
		fields := strings.Fields(string(stat[i+1:]))
		if len(fields) < 2 || fields[1] != strconv.Itoa(self) {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		args := strings.Split(strings.TrimRight(string(cmdline), "\x00"), "\x00")
		if len(args) > 0 && filepath.Base(args[0]) == name {
			return pid, args, nil
		}
	}
	return 0, nil, fmt.Errorf("no %s process is a child of this process", name)
}

func processAlive(pid int) bool {
	stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(stat, ')')
	// A zombie (Z) has exited; its parent has not reaped it yet.
	return i >= 0 && !strings.HasPrefix(strings.TrimSpace(string(stat[i+1:])), "Z")
}

// UserKubeconfig provisions a user with the given name and no group (so not
// in system:masters: API Priority and Fairness classifies its requests like
// those of a CI service account), binds it to cluster-admin, and writes a
// kubeconfig for it. It returns the file's path.
func (c *TestCluster) UserKubeconfig(ctx context.Context, name string) (string, error) {
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name + "-cluster-admin"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "cluster-admin"},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: name}},
	}
	if _, err := c.clientset.RbacV1().ClusterRoleBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return "", fmt.Errorf("binding %s to cluster-admin: %w", name, err)
	}
	return c.UnboundUserKubeconfig(name)
}

// UnboundUserKubeconfig provisions a user with the given name and no group and writes a
// kubeconfig for it, without any binding: the user can do only what the test's own RBAC
// bindings allow, which is how a test proves what a restricted token can and cannot do.
func (c *TestCluster) UnboundUserKubeconfig(name string) (string, error) {
	user, err := c.env.AddUser(envtest.User{Name: name}, nil)
	if err != nil {
		return "", fmt.Errorf("adding user %s: %w", name, err)
	}
	kubeconfig, err := user.KubeConfig()
	if err != nil {
		return "", err
	}
	path := filepath.Join(c.kubeconfigDir, "kubeconfig-"+name)
	if err := os.WriteFile(path, kubeconfig, 0o600); err != nil {
		return "", err
	}
	return path, nil
}
