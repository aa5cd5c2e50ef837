package faulttest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/acctest"
)

// The fault tests run the Terraform CLI themselves (not through
// terraform-plugin-testing) because they signal it, run it while the API
// server is down, and look at its exit status and output: the provider is the
// binary users install, found through a dev_overrides CLI configuration.

var (
	buildOnce   sync.Once
	providerDir string
	buildErr    error
)

// providerBinary builds the provider once per test process.
func providerBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		// scripts/test.sh builds the provider once for every phase.
		if dir := os.Getenv("KUBEINFER_PROVIDER_DIR"); dir != "" {
			if fi, err := os.Stat(filepath.Join(dir, "terraform-provider-kubeinfer")); err == nil && fi.Mode()&0o111 != 0 {
				providerDir = dir
				return
			}
		}
		root, err := acctest.RepoRoot()
		if err != nil {
			buildErr = err
			return
		}
		// Shared by every test of the process (sync.Once): t.TempDir would go with the first.
		dir, err := os.MkdirTemp("", "kubeinfer-faults-provider-") //nolint:usetesting // see above
		if err != nil {
			buildErr = err
			return
		}
		cmd := exec.Command("go", "build", "-o", filepath.Join(dir, "terraform-provider-kubeinfer"), ".")
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("building the provider: %v\n%s", err, out)
			return
		}
		providerDir = dir
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return providerDir
}

func terraformPath(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("TF_ACC_TERRAFORM_PATH"); p != "" {
		return p
	}
	p, err := exec.LookPath("terraform")
	if err != nil {
		t.Fatal("the fault suite needs the Terraform CLI: put terraform on PATH or set TF_ACC_TERRAFORM_PATH")
	}
	return p
}

// workdir is a Terraform working directory with one configuration.
type workdir struct {
	t   *testing.T
	dir string
	env []string
	tf  string
	// diagnose, when set, describes the cluster when a run that must succeed
	// fails (see acctest.TestCluster.Diagnose).
	diagnose func() string
}

func newWorkdir(t *testing.T, config string) *workdir {
	t.Helper()
	dir := t.TempDir()
	cliConfig := filepath.Join(dir, ".terraformrc")
	// Both registries' addresses, so that OpenTofu (TF_ACC_TERRAFORM_PATH pointing at tofu) runs
	// the suite too.
	if err := os.WriteFile(cliConfig, []byte(fmt.Sprintf(`provider_installation {
  dev_overrides {
    "registry.terraform.io/kubeinfer/kubeinfer" = %[1]q
    "registry.opentofu.org/kubeinfer/kubeinfer" = %[1]q
  }
  direct {}
}
`, providerBinary(t))), 0o600); err != nil {
		t.Fatal(err)
	}
	w := &workdir{t: t, dir: dir, tf: terraformPath(t), env: append(os.Environ(),
		"TF_CLI_CONFIG_FILE="+cliConfig,
		"CHECKPOINT_DISABLE=1",
		"TF_IN_AUTOMATION=1",
		"TF_LOG=", "TF_LOG_PROVIDER=",
	)}
	w.write(config)
	return w
}

const requiredProviders = `terraform {
  required_providers {
    kubeinfer = { source = "kubeinfer/kubeinfer" }
  }
}
`

func (w *workdir) write(config string) {
	w.t.Helper()
	if err := os.WriteFile(filepath.Join(w.dir, "main.tf"), []byte(requiredProviders+config), 0o600); err != nil {
		w.t.Fatal(err)
	}
}

// result is one CLI run.
type result struct {
	args   []string
	out    string
	code   int
	took   time.Duration
	signal string // the signal the test sent, if any
}

func (r result) String() string {
	return fmt.Sprintf("terraform %s: exit %d after %s%s\n%s", strings.Join(r.args, " "), r.code, r.took.Round(time.Millisecond), r.signal, tail(r.out, 6000))
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "...\n" + s[len(s)-n:]
}

// run runs terraform with args and returns when it exits or ctx ends (then
// it is killed).
func (w *workdir) run(ctx context.Context, args ...string) result {
	w.t.Helper()
	r := w.start(ctx, args...)
	return r.wait()
}

// running is a CLI run in progress.
type running struct {
	cmd   *exec.Cmd
	out   *syncBuffer
	start time.Time
	args  []string
	sig   string
	done  chan struct{}
	res   result
}

func (w *workdir) start(ctx context.Context, args ...string) *running {
	w.t.Helper()
	full := append([]string{"-chdir=" + w.dir}, args...)
	cmd := exec.CommandContext(ctx, w.tf, full...)
	cmd.Env = w.env
	buf := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = buf, buf
	// Its own process group, as in a terminal: SIGINT goes to Terraform and
	// the provider together, as Ctrl-C does.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	r := &running{cmd: cmd, out: buf, start: time.Now(), args: args, done: make(chan struct{})}
	if err := cmd.Start(); err != nil {
		w.t.Fatalf("starting terraform: %v", err)
	}
	go func() {
		err := cmd.Wait()
		code := 0
		var exitErr *exec.ExitError
		if errors.As(err, &exitErr) {
			code = exitErr.ExitCode()
		} else if err != nil {
			code = -1
		}
		r.res = result{args: args, out: buf.String(), code: code, took: time.Since(r.start), signal: r.sig}
		close(r.done)
	}()
	return r
}

// interrupt sends SIGINT to the process group, as Ctrl-C in a terminal does.
func (r *running) interrupt() {
	r.sig = " (SIGINT sent)"
	_ = syscall.Kill(-r.cmd.Process.Pid, syscall.SIGINT)
}

func (r *running) wait() result {
	<-r.done
	return r.res
}

// waitOutput waits until the output matches re or the run ends; it reports
// whether it matched.
func (r *running) waitOutput(re *regexp.Regexp, limit time.Duration) bool {
	deadline := time.After(limit)
	for {
		if re.MatchString(r.out.String()) {
			return true
		}
		select {
		case <-r.done:
			return re.MatchString(r.out.String())
		case <-deadline:
			return false
		case <-time.After(20 * time.Millisecond):
		}
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// panicked reports output that shows a crashed provider or CLI.
var panicked = regexp.MustCompile(`(?m)^panic:|goroutine \d+ \[running\]|The plugin encountered an error, and failed to respond|Plugin did not respond|Terraform crashed`)

// mustSucceed runs terraform and fails the test unless it exits with 0.
func (w *workdir) mustSucceed(ctx context.Context, args ...string) result {
	w.t.Helper()
	r := w.run(ctx, args...)
	w.checkNoPanic(r)
	if r.code != 0 {
		// The cluster's state first and the failed run last: a CI log shown by its tail then
		// still shows what failed.
		if w.diagnose != nil {
			w.t.Logf("--- the cluster ---\n%s", w.diagnose())
		}
		w.t.Fatalf("want success:\n%s", r)
	}
	return r
}

func (w *workdir) checkNoPanic(r result) {
	w.t.Helper()
	if panicked.MatchString(r.out) {
		w.t.Fatalf("crash in the output:\n%s", r)
	}
}

// planEmpty fails the test unless `terraform plan -detailed-exitcode` finds
// nothing to do.
func (w *workdir) planEmpty(ctx context.Context) {
	w.t.Helper()
	r := w.run(ctx, "plan", "-detailed-exitcode", "-input=false", "-no-color", "-lock=false")
	w.checkNoPanic(r)
	if r.code != 0 {
		w.t.Fatalf("want an empty plan:\n%s", r)
	}
}

// stateResource is a resource instance of `terraform show -json`.
type stateResource struct {
	Address string `json:"address"`
	Tainted bool   `json:"tainted"`
	Values  struct {
		ID string `json:"id"`
	} `json:"values"`
}

// state lists the resource instances of the state.
func (w *workdir) state(ctx context.Context) []stateResource {
	w.t.Helper()
	r := w.run(ctx, "show", "-json", "-no-color")
	if r.code != 0 {
		w.t.Fatalf("terraform show:\n%s", r)
	}
	var doc struct {
		Values *struct {
			RootModule struct {
				Resources []stateResource `json:"resources"`
			} `json:"root_module"`
		} `json:"values"`
	}
	if err := json.Unmarshal([]byte(r.out), &doc); err != nil {
		w.t.Fatalf("terraform show -json: %v\n%s", err, tail(r.out, 2000))
	}
	if doc.Values == nil {
		return nil
	}
	return doc.Values.RootModule.Resources
}

// stateIDs returns the ids in state and fails the test on a tainted or
// duplicated one.
func (w *workdir) stateIDs(ctx context.Context) []string {
	w.t.Helper()
	var ids []string
	seen := map[string]string{}
	for _, r := range w.state(ctx) {
		if r.Tainted {
			w.t.Errorf("%s (%s) is tainted: the next apply would replace it", r.Address, r.Values.ID)
		}
		if prev, dup := seen[r.Values.ID]; dup {
			w.t.Errorf("%s and %s both manage %s", prev, r.Address, r.Values.ID)
		}
		seen[r.Values.ID] = r.Address
		ids = append(ids, r.Values.ID)
	}
	sort.Strings(ids)
	return ids
}
