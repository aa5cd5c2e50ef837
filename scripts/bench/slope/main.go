// Command slope measures how the CPU time of `terraform validate` and of an offline
// `terraform plan` grows with the size of ONE kubeinfer_leaderworkerset: its worker template
// gets N more containers, env entries, volumes or tolerations (the dimensions of
// BenchmarkPlanCreateScale in internal/leaderworkerset/bench_test.go). Run by
// scripts/bench/slope/run.sh; results in scripts/bench/results/slope/.
//
// As in the Terraform-level driver (scripts/bench/main.go), dev_overrides points Terraform at a
// wrapper that runs the real provider under GNU time (/usr/bin/time), which writes each provider
// process's user and system time; Terraform runs under GNU time too. Terraform's own CPU is its
// user+system time (which includes the children it waited for: the provider processes) minus the
// provider's.
//
//	go run ./scripts/bench/slope -provider /path/to/terraform-provider-kubeinfer -dims containers -n 100,500
//	go run ./scripts/bench/slope -emit /tmp/slope-hcl -dims containers -n 1000   # only write main.tf files
//	go run ./scripts/bench/slope -gobench scripts/bench/results/slope/go-bench.txt  # table of the Go benchmark
//	go run ./scripts/bench/slope -render -out scripts/bench/results/slope  # rewrite cli.md's tables from cli.tsv
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "slope:", err)
		os.Exit(1)
	}
}

type options struct {
	provider, terraform, timeBin, work, out, emit string
	dims, ops                                     []string
	ns                                            []int
	runs                                          int
	timeout                                       time.Duration
}

func run() error {
	var o options
	var dimList, opList, nList string
	flag.StringVar(&o.provider, "provider", "", "provider binary (required unless -emit or -gobench)")
	flag.StringVar(&o.terraform, "terraform", "terraform", "Terraform CLI")
	flag.StringVar(&o.timeBin, "time", "/usr/bin/time", "GNU time")
	flag.StringVar(&o.work, "work", "", "scratch folder (default: a temporary folder, removed at the end)")
	flag.StringVar(&o.out, "out", "scripts/bench/results/slope", "results folder (cli.tsv, cli.md)")
	flag.StringVar(&o.emit, "emit", "", "only write <dim>-<N>/main.tf of every case under this folder")
	flag.StringVar(&dimList, "dims", "containers,env,volumes", "dimensions: containers, env, volumes, tolerations")
	flag.StringVar(&opList, "ops", "validate,plan", "Terraform commands: validate, plan")
	flag.StringVar(&nList, "n", "100,500,1000,2000", "numbers of items")
	flag.IntVar(&o.runs, "runs", 1, "runs per case (the one with the least total CPU is reported)")
	flag.DurationVar(&o.timeout, "timeout", 3*time.Minute, "a Terraform run longer than this is stopped and the larger N of that dimension and command skipped")
	gobench := flag.String("gobench", "", "print the markdown table of this `go test -bench PlanCreateScale` output and exit")
	renderDir := flag.Bool("render", false, "only rewrite the tables of <-out>/cli.md from <-out>/cli.tsv")
	flag.Parse()

	if *gobench != "" {
		return goBenchTable(*gobench, os.Stdout)
	}
	if *renderDir {
		return render(o.out)
	}
	o.dims = splitList(dimList)
	o.ops = splitList(opList)
	for _, d := range o.dims {
		if dims[d] == nil {
			return fmt.Errorf("-dims: unknown dimension %q", d)
		}
	}
	for _, op := range o.ops {
		if op != "validate" && op != "plan" {
			return fmt.Errorf("-ops: unknown command %q", op)
		}
	}
	for _, f := range splitList(nList) {
		n, err := strconv.Atoi(f)
		if err != nil || n < 0 {
			return fmt.Errorf("-n: %q is not a number of items", f)
		}
		o.ns = append(o.ns, n)
	}
	if o.emit != "" {
		for _, d := range o.dims {
			for _, n := range o.ns {
				dir := filepath.Join(o.emit, fmt.Sprintf("%s-%d", d, n))
				if err := writeConfig(dir, d, n); err != nil {
					return err
				}
				logf("wrote %s", dir)
			}
		}
		return nil
	}
	if o.provider == "" {
		flag.Usage()
		return errors.New("-provider is required")
	}
	if o.runs < 1 {
		return errors.New("-runs must be at least 1")
	}
	var err error
	if o.provider, err = filepath.Abs(o.provider); err != nil {
		return err
	}
	if o.work == "" {
		if o.work, err = os.MkdirTemp("", "kubeinfer-slope-"); err != nil {
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
	m, err := newMeter(o)
	if err != nil {
		return err
	}
	loadBefore := loadAverage()
	start := time.Now()
	var samples []sample
	for _, d := range o.dims {
		for _, op := range o.ops {
			skipped := false
			for _, n := range o.ns {
				if skipped {
					samples = append(samples, sample{dim: d, op: op, n: n, skipped: "skipped: a smaller N exceeded the timeout"})
					continue
				}
				s, err := m.measure(d, op, n)
				if err != nil {
					return fmt.Errorf("%s %s N=%d: %w", op, d, n, err)
				}
				if s.skipped != "" {
					skipped = true
				}
				samples = append(samples, s)
			}
		}
	}
	elapsed := time.Since(start)
	loadAfter := loadAverage()
	return writeResults(o, m.version, samples, loadBefore, loadAfter, elapsed)
}

func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

func writeConfig(dir, dim string, n int) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "main.tf"), []byte(configFor(dim, n)), 0o644)
}

// sample is the best of o.runs runs of one Terraform command on one case.
type sample struct {
	dim, op string
	n       int
	runs    int
	wall    time.Duration
	total   time.Duration // user+system of terraform and the children it waited for
	prov    time.Duration // user+system of all provider processes
	nProc   int           // provider processes started
	provRSS int64         // KiB, largest provider process
	tfRSS   int64         // KiB, GNU time's figure for terraform (the largest of it and its children)
	bytes   int           // size of main.tf
	skipped string
}

func (s sample) tfOwn() time.Duration { return s.total - s.prov }

type meter struct {
	o          options
	env        []string
	rssDir     string
	tfTimeFile string
	version    string
}

func newMeter(o options) (*meter, error) {
	m := &meter{o: o, rssDir: filepath.Join(o.work, "provider-usage"), tfTimeFile: filepath.Join(o.work, "terraform.time")}
	wrapDir := filepath.Join(o.work, "provider")
	for _, d := range []string{m.rssDir, wrapDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	if _, err := os.Stat(o.timeBin); err != nil {
		return nil, fmt.Errorf("GNU time is needed (apt-get install time): %w", err)
	}
	// The same wrapper as scripts/bench/main.go: GNU time runs the real provider and writes its
	// peak RSS (KiB) and CPU times when it exits; $$ is the wrapper's (then time's) PID.
	wrapper := fmt.Sprintf("#!/bin/sh\nexec %s -q -f '%%M %%U %%S' -o %s/provider.$$ %s \"$@\"\n",
		shellQuote(o.timeBin), shellQuote(m.rssDir), shellQuote(o.provider))
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
		if strings.HasPrefix(k, "KUBE_") || strings.HasPrefix(k, "TF_") || k == "KUBECONFIG" {
			continue
		}
		m.env = append(m.env, kv)
	}
	m.env = append(m.env, "TF_CLI_CONFIG_FILE="+rcPath, "TF_IN_AUTOMATION=1", "TF_INPUT=0", "CHECKPOINT_DISABLE=1")
	out, _ := exec.Command(o.terraform, "version").Output()
	m.version, _, _ = strings.Cut(strings.TrimSpace(string(out)), "\n")
	return m, nil
}

// measure runs one command o.runs times on a fresh configuration and keeps the run with the
// least total CPU (the least disturbed by other jobs on the machine).
func (m *meter) measure(dim, op string, n int) (sample, error) {
	dir := filepath.Join(m.o.work, fmt.Sprintf("%s-%d", dim, n))
	if err := writeConfig(dir, dim, n); err != nil {
		return sample{}, err
	}
	info, err := os.Stat(filepath.Join(dir, "main.tf"))
	if err != nil {
		return sample{}, err
	}
	args, wantExit := []string{"validate", "-no-color"}, 0
	if op == "plan" {
		// -detailed-exitcode: 2 is a plan with changes, as expected for a new object.
		args, wantExit = []string{"plan", "-input=false", "-no-color", "-lock=false", "-detailed-exitcode"}, 2
	}
	best := sample{dim: dim, op: op, n: n, bytes: int(info.Size())}
	for r := 1; r <= m.o.runs; r++ {
		s, err := m.terraform(dir, wantExit, args...)
		if errors.Is(err, context.DeadlineExceeded) {
			best.skipped = fmt.Sprintf("stopped after %s", m.o.timeout)
			logf("%-8s %-11s N=%-5d run %d/%d: %s", op, dim, n, r, m.o.runs, best.skipped)
			return best, nil
		}
		if err != nil {
			return best, err
		}
		logf("%-8s %-11s N=%-5d run %d/%d: wall %6.2f s  terraform %6.2f s CPU  provider %5.2f s CPU (%d process(es), %5.1f MiB)",
			op, dim, n, r, m.o.runs, s.wall.Seconds(), s.tfOwn().Seconds(), s.prov.Seconds(), s.nProc, float64(s.provRSS)/1024)
		if r == 1 || s.total < best.total {
			s.dim, s.op, s.n, s.bytes = dim, op, n, best.bytes
			best = s
		}
	}
	best.runs = m.o.runs
	return best, nil
}

// terraform runs one Terraform command under GNU time, in its own process group so that a
// timeout stops Terraform and the provider too.
func (m *meter) terraform(dir string, wantExit int, args ...string) (sample, error) {
	if err := clearDir(m.rssDir); err != nil {
		return sample{}, err
	}
	_ = os.Remove(m.tfTimeFile)
	argv := append([]string{"-q", "-f", "%M %U %S", "-o", m.tfTimeFile, m.o.terraform}, args...)
	cmd := exec.Command(m.o.timeBin, argv...)
	cmd.Dir, cmd.Env = dir, m.env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return sample{}, err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(m.o.timeout):
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		return sample{}, fmt.Errorf("%w (terraform: %v)", context.DeadlineExceeded, <-done)
	}
	s := sample{wall: time.Since(start)}
	code := 0
	var exitErr *exec.ExitError
	if errors.As(err, &exitErr) {
		code = exitErr.ExitCode()
	} else if err != nil {
		return s, err
	}
	if code != wantExit {
		return s, fmt.Errorf("terraform %s exited with %d (want %d):\n%s", strings.Join(args, " "), code, wantExit, tail(out.String(), 4000))
	}
	if s.tfRSS, s.total, err = readGNUTime(m.tfTimeFile); err != nil {
		return s, fmt.Errorf("terraform's usage: %w", err)
	}
	entries, err := os.ReadDir(m.rssDir)
	if err != nil {
		return s, err
	}
	for _, e := range entries {
		rss, c, err := readGNUTime(filepath.Join(m.rssDir, e.Name()))
		if err != nil {
			return s, err
		}
		s.provRSS = max(s.provRSS, rss)
		s.prov += c
		s.nProc++
	}
	if s.nProc == 0 {
		return s, errors.New("no provider usage was recorded: did Terraform run the wrapper from dev_overrides?")
	}
	return s, nil
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

// readGNUTime reads a file that GNU time wrote with -f '%M %U %S': the peak RSS (KiB) and the
// user + system time.
func readGNUTime(path string) (rssKiB int64, cpu time.Duration, err error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, 0, err
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	f := strings.Fields(lines[len(lines)-1])
	if len(f) != 3 {
		return 0, 0, fmt.Errorf("unexpected output of GNU time in %s: %q", filepath.Base(path), data)
	}
	rss, err1 := strconv.ParseInt(f[0], 10, 64)
	user, err2 := strconv.ParseFloat(f[1], 64)
	sys, err3 := strconv.ParseFloat(f[2], 64)
	if err := errors.Join(err1, err2, err3); err != nil {
		return 0, 0, fmt.Errorf("output of GNU time in %s: %w", filepath.Base(path), err)
	}
	return rss, time.Duration((user + sys) * float64(time.Second)), nil
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "...\n" + s[len(s)-n:]
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func loadAverage() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(data))
	if len(f) < 3 {
		return ""
	}
	return strings.Join(f[:3], " ")
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "slope: "+format+"\n", args...)
}

func numCPU() int { return runtime.NumCPU() }
