// Command bench is the Terraform-level benchmark of issue #7, run by scripts/bench/run.sh
// (`make bench`): for N LeaderWorkerSets and PriorityLevelConfigurations it times
// `terraform plan` of new objects (provider pointed at an unreachable host), `terraform apply`,
// a no-change `terraform plan` and `terraform destroy` against a running API server, records
// the provider's peak RSS and CPU time, times kubectl doing the same work as the floor, and
// writes a markdown table (bench.md), the raw samples (bench.tsv) and a plot (bench.png, with
// gnuplot) to the results folder.
//
// The provider's resource usage comes from a wrapper script that dev_overrides points at: it
// runs the real provider under GNU time (/usr/bin/time), which writes the peak RSS and CPU
// time of each provider process Terraform starts.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

type options struct {
	provider, kubeconfig, terraform, kubectl, gnuplot, timeBin string
	work, out                                                  string
	runs                                                       int
	lws, plc                                                   []int
}

func run() error {
	var o options
	var lws, plc string
	flag.StringVar(&o.provider, "provider", "", "provider binary (required)")
	flag.StringVar(&o.kubeconfig, "kubeconfig", "", "kubeconfig of the running cluster (required)")
	flag.StringVar(&o.terraform, "terraform", "terraform", "Terraform CLI")
	flag.StringVar(&o.kubectl, "kubectl", "kubectl", "kubectl, for the floor")
	flag.StringVar(&o.gnuplot, "gnuplot", "gnuplot", "gnuplot, for bench.png (skipped when not found)")
	flag.StringVar(&o.timeBin, "time", "/usr/bin/time", "GNU time, to measure the provider's peak RSS")
	flag.StringVar(&o.work, "work", "", "scratch folder (default: a temporary folder)")
	flag.StringVar(&o.out, "out", "results", "results folder")
	flag.IntVar(&o.runs, "runs", 3, "runs per operation (the median is reported)")
	flag.StringVar(&lws, "lws", "1,20,100", "numbers of LeaderWorkerSets")
	flag.StringVar(&plc, "plc", "20,100", "numbers of PriorityLevelConfigurations")
	emit := flag.String("emit", "", "only write the configurations and manifests of every case under this folder (for profiling by hand)")
	flag.Parse()
	if *emit != "" {
		return emitCases(*emit, o.kubeconfig, lws, plc)
	}
	if o.provider == "" || o.kubeconfig == "" {
		flag.Usage()
		return errors.New("-provider and -kubeconfig are required")
	}
	var err error
	if o.lws, err = parseInts(lws); err != nil {
		return fmt.Errorf("-lws: %w", err)
	}
	if o.plc, err = parseInts(plc); err != nil {
		return fmt.Errorf("-plc: %w", err)
	}
	if o.runs < 1 {
		return errors.New("-runs must be at least 1")
	}
	for _, p := range []*string{&o.provider, &o.kubeconfig} {
		if *p, err = filepath.Abs(*p); err != nil {
			return err
		}
	}
	if o.work == "" {
		if o.work, err = os.MkdirTemp("", "kubeinfer-bench-"); err != nil {
			return err
		}
		defer os.RemoveAll(o.work)
	}
	if o.work, err = filepath.Abs(o.work); err != nil {
		return err
	}
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return err
	}

	b, err := newBench(o)
	if err != nil {
		return err
	}
	start := time.Now()
	for _, c := range b.cases() {
		if err := b.runCase(c); err != nil {
			return fmt.Errorf("%s N=%d: %w", c.kind.Name, c.n, err)
		}
	}
	logf("measured in %s", time.Since(start).Round(time.Second))
	return b.report()
}

func emitCases(dir, kubeconfig, lws, plc string) error {
	b := &bench{}
	var err error
	if b.o.lws, err = parseInts(lws); err != nil {
		return err
	}
	if b.o.plc, err = parseInts(plc); err != nil {
		return err
	}
	for _, c := range b.cases() {
		d := filepath.Join(dir, fmt.Sprintf("%s-%d", strings.ToLower(c.kind.Name), c.n))
		if err := writeCase(d, c, kubeconfig); err != nil {
			return err
		}
		logf("wrote %s", d)
	}
	return nil
}

// writeCase writes offline/main.tf, online/main.tf and objects.yaml of a case under dir.
func writeCase(dir string, c benchCase, kubeconfig string) error {
	for _, offline := range []bool{true, false} {
		sub := filepath.Join(dir, map[bool]string{true: "offline", false: "online"}[offline])
		if err := os.MkdirAll(sub, 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(sub, "main.tf"), []byte(configFor(c.kind, c.n, kubeconfig, offline)), 0o644); err != nil {
			return err
		}
	}
	manifests, err := manifestsFor(c.kind, c.n)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "objects.yaml"), manifests, 0o644)
}

func parseInts(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		n, err := strconv.Atoi(f)
		if err != nil || n < 1 {
			return nil, fmt.Errorf("%q is not a positive number", f)
		}
		out = append(out, n)
	}
	return out, nil
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "bench: "+format+"\n", args...)
}

// Operations, in the order they run.
const (
	opPlan    = "plan, new objects (no cluster reachable)"
	opApply   = "apply"
	opNoop    = "plan, no change"
	opDestroy = "destroy"
)

var operations = []string{opPlan, opApply, opNoop, opDestroy}

// floorCommand is what kubectl does for each operation.
var floorCommand = map[string]string{
	opPlan:    "kubectl apply --server-side --dry-run=server",
	opApply:   "kubectl apply --server-side",
	opNoop:    "kubectl diff --server-side",
	opDestroy: "kubectl delete --wait",
}

type benchCase struct {
	kind benchKind
	n    int
}

type caseKey struct {
	kind string
	n    int
}

func (c benchCase) key() caseKey { return caseKey{c.kind.Name, c.n} }

// sample is one timed command.
type sample struct {
	wall    time.Duration
	rssKiB  int64         // peak RSS of the largest provider process (Terraform only)
	cpu     time.Duration // user + system time of all provider processes (Terraform only)
	nProc   int           // provider processes started
	total   time.Duration // user + system time of the command and the children it waited for
	warning string        // unexpected outcome that did not stop the run
}

type result struct {
	tf, floor []sample
}

type bench struct {
	o        options
	env      []string // environment of terraform and kubectl
	rssDir   string
	results  map[caseKey]map[string]*result
	versions map[string]string
}

func newBench(o options) (*bench, error) {
	b := &bench{o: o, rssDir: filepath.Join(o.work, "rss"), results: map[caseKey]map[string]*result{}, versions: map[string]string{}}
	wrapDir := filepath.Join(o.work, "provider")
	for _, d := range []string{b.rssDir, wrapDir, filepath.Join(o.work, "kubectl-cache")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	if _, err := os.Stat(o.timeBin); err != nil {
		return nil, fmt.Errorf("GNU time is needed to measure the provider's RSS (apt-get install time): %w", err)
	}
	// Terraform runs this wrapper as the provider; GNU time runs the real one and writes its
	// peak RSS (KiB) and CPU times when it exits. $$ is the wrapper's (then time's) PID.
	wrapper := fmt.Sprintf("#!/bin/sh\nexec %s -q -f '%%M %%U %%S' -o %s/provider.$$ %s \"$@\"\n",
		shellQuote(o.timeBin), shellQuote(b.rssDir), shellQuote(o.provider))
	if err := os.WriteFile(filepath.Join(wrapDir, "terraform-provider-kubeinfer"), []byte(wrapper), 0o755); err != nil {
		return nil, err
	}
	rc := fmt.Sprintf("provider_installation {\n  dev_overrides {\n    \"registry.terraform.io/kubeinfer/kubeinfer\" = %q\n  }\n  direct {}\n}\n", wrapDir)
	rcPath := filepath.Join(o.work, "terraform.rc")
	if err := os.WriteFile(rcPath, []byte(rc), 0o644); err != nil {
		return nil, err
	}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		// Nothing from the caller's environment may redirect the provider or Terraform.
		if strings.HasPrefix(k, "KUBE_") || strings.HasPrefix(k, "TF_") || k == "KUBECONFIG" {
			continue
		}
		b.env = append(b.env, kv)
	}
	b.env = append(b.env, "TF_CLI_CONFIG_FILE="+rcPath, "TF_IN_AUTOMATION=1", "TF_INPUT=0", "CHECKPOINT_DISABLE=1",
		"KUBECONFIG="+o.kubeconfig)
	b.versions["terraform"] = firstLine(exec.Command(o.terraform, "version").Output())
	b.versions["kubectl"] = firstLine(exec.Command(o.kubectl, "version", "--client").Output())
	return b, nil
}

func firstLine(out []byte, _ error) string {
	s, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	return s
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func (b *bench) cases() []benchCase {
	var cs []benchCase
	for _, n := range b.o.lws {
		cs = append(cs, benchCase{lwsKind, n})
	}
	for _, n := range b.o.plc {
		cs = append(cs, benchCase{plcKind, n})
	}
	return cs
}

func (b *bench) result(c benchCase, op string) *result {
	k := c.key()
	if b.results[k] == nil {
		b.results[k] = map[string]*result{}
	}
	if b.results[k][op] == nil {
		b.results[k][op] = &result{}
	}
	return b.results[k][op]
}

// runCase measures one kind and N: o.runs cycles of plan (offline) / apply / no-change plan /
// destroy with Terraform, each from empty state and an empty cluster, then the same with kubectl.
func (b *bench) runCase(c benchCase) error {
	dir := filepath.Join(b.o.work, fmt.Sprintf("%s-%d", strings.ToLower(c.kind.Name), c.n))
	offline, online := filepath.Join(dir, "offline"), filepath.Join(dir, "online")
	if err := writeCase(dir, c, b.o.kubeconfig); err != nil {
		return err
	}
	yamlPath := filepath.Join(dir, "objects.yaml")

	tf := func(dir string, wantExit int, args ...string) (sample, error) {
		return b.terraform(dir, wantExit, args...)
	}
	kubectl := func(wantExit int, args ...string) (sample, error) {
		args = append(args, "-f", yamlPath, "--cache-dir", filepath.Join(b.o.work, "kubectl-cache"))
		return b.command(dir, wantExit, b.o.kubectl, args...)
	}
	for r := 1; r <= b.o.runs; r++ {
		logf("%s N=%d run %d/%d", c.kind.Name, c.n, r, b.o.runs)
		for _, f := range []string{"terraform.tfstate", "terraform.tfstate.backup"} {
			_ = os.Remove(filepath.Join(online, f))
		}
		steps := []struct {
			op  string
			run func() (sample, error)
		}{
			// -detailed-exitcode: 2 means changes (expected for new objects), 0 none.
			{opPlan, func() (sample, error) {
				return tf(offline, 2, "plan", "-input=false", "-no-color", "-detailed-exitcode")
			}},
			{opApply, func() (sample, error) { return tf(online, 0, "apply", "-input=false", "-no-color", "-auto-approve") }},
			{opNoop, func() (sample, error) {
				return tf(online, 0, "plan", "-input=false", "-no-color", "-detailed-exitcode")
			}},
			{opDestroy, func() (sample, error) { return tf(online, 0, "destroy", "-input=false", "-no-color", "-auto-approve") }},
		}
		for _, s := range steps {
			smp, err := s.run()
			if err != nil {
				return fmt.Errorf("terraform, %s: %w", s.op, err)
			}
			b.result(c, s.op).tf = append(b.result(c, s.op).tf, smp)
			logf("  terraform %-42s %6.2f s  provider %5.1f MiB, %5.2f s CPU, %d process(es); terraform %5.2f s CPU%s", s.op, smp.wall.Seconds(),
				float64(smp.rssKiB)/1024, smp.cpu.Seconds(), smp.nProc, (smp.total - smp.cpu).Seconds(), suffix(smp.warning))
		}
		floor := []struct {
			op  string
			run func() (sample, error)
		}{
			{opPlan, func() (sample, error) { return kubectl(0, "apply", "--server-side", "--dry-run=server") }},
			{opApply, func() (sample, error) { return kubectl(0, "apply", "--server-side") }},
			// diff exits 1 when there are differences; the same field manager as apply.
			{opNoop, func() (sample, error) { return kubectl(0, "diff", "--server-side", "--field-manager=kubectl") }},
			{opDestroy, func() (sample, error) { return kubectl(0, "delete", "--wait") }},
		}
		for _, s := range floor {
			smp, err := s.run()
			if err != nil {
				return fmt.Errorf("kubectl floor, %s: %w", s.op, err)
			}
			b.result(c, s.op).floor = append(b.result(c, s.op).floor, smp)
			logf("  kubectl   %-42s %6.2f s%s", s.op, smp.wall.Seconds(), suffix(smp.warning))
		}
	}
	return nil
}

func suffix(w string) string {
	if w == "" {
		return ""
	}
	return "  WARNING: " + w
}

// terraform runs one Terraform command and collects the provider processes' usage.
func (b *bench) terraform(dir string, wantExit int, args ...string) (sample, error) {
	if err := clearDir(b.rssDir); err != nil {
		return sample{}, err
	}
	s, err := b.command(dir, wantExit, b.o.terraform, args...)
	if err != nil {
		return s, err
	}
	s.rssKiB, s.cpu, s.nProc, err = b.providerUsage()
	if err == nil && s.nProc == 0 {
		err = errors.New("no provider usage was recorded: did Terraform run the wrapper from dev_overrides?")
	}
	return s, err
}

// command runs a command and times it. An exit status other than wantExit fails the run,
// except a no-change check that finds changes (exit 2 of plan -detailed-exitcode, 1 of
// kubectl diff), which is recorded as a warning: the time is still meaningful.
func (b *bench) command(dir string, wantExit int, name string, args ...string) (sample, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = b.env
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	err := cmd.Run()
	s := sample{wall: time.Since(start)}
	if cmd.ProcessState != nil {
		s.total = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	code := 0
	var exitErr *exec.ExitError
	if errors.As(err, &exitErr) {
		code = exitErr.ExitCode()
	} else if err != nil {
		return s, err
	}
	if code == wantExit {
		return s, nil
	}
	isTFPlan := filepath.Base(name) == filepath.Base(b.o.terraform) && len(args) > 0 && args[0] == "plan"
	isDiff := len(args) > 0 && args[0] == "diff"
	if wantExit == 0 && ((isTFPlan && code == 2) || (isDiff && code == 1)) {
		s.warning = "expected no changes, got changes"
		_ = os.WriteFile(filepath.Join(dir, fmt.Sprintf("unexpected-changes-%d.txt", time.Now().UnixNano())), []byte(out.String()), 0o644)
		return s, nil
	}
	return s, fmt.Errorf("%s %s exited with %d (want %d):\n%s", name, strings.Join(args, " "), code, wantExit, tail(out.String(), 4000))
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "...\n" + s[len(s)-n:]
}

func clearDir(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if err := os.Remove(filepath.Join(dir, e.Name())); err != nil {
			return err
		}
	}
	return nil
}

// providerUsage reads what GNU time wrote for each provider process: the largest peak RSS and
// the total CPU time.
func (b *bench) providerUsage() (rssKiB int64, cpu time.Duration, n int, err error) {
	entries, err := os.ReadDir(b.rssDir)
	if err != nil {
		return 0, 0, 0, err
	}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(b.rssDir, e.Name()))
		if err != nil {
			return 0, 0, 0, err
		}
		// The last line holds the format; a line before it may report a signal.
		lines := strings.Split(strings.TrimSpace(string(data)), "\n")
		f := strings.Fields(lines[len(lines)-1])
		if len(f) != 3 {
			return 0, 0, 0, fmt.Errorf("unexpected output of GNU time in %s: %q", e.Name(), data)
		}
		rss, err1 := strconv.ParseInt(f[0], 10, 64)
		user, err2 := strconv.ParseFloat(f[1], 64)
		sys, err3 := strconv.ParseFloat(f[2], 64)
		if err := errors.Join(err1, err2, err3); err != nil {
			return 0, 0, 0, fmt.Errorf("output of GNU time in %s: %w", e.Name(), err)
		}
		rssKiB = max(rssKiB, rss)
		cpu += time.Duration((user + sys) * float64(time.Second))
		n++
	}
	return rssKiB, cpu, n, nil
}

func numCPU() int { return runtime.NumCPU() }
