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

	"github.com/kubeinfer/terraform-provider-kubeinfer/scripts/bench/internal/tfbench"
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
	var removeWork func()
	if o.work, removeWork, err = tfbench.WorkDir(o.work, "kubeinfer-slope-"); err != nil {
		return err
	}
	defer removeWork()
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return err
	}
	m, err := newMeter(o)
	if err != nil {
		return err
	}
	loadBefore := tfbench.LoadAverage()
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
	loadAfter := tfbench.LoadAverage()
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
	o       options
	tm      *tfbench.Meter // runs the provider and Terraform under GNU time
	version string
}

func newMeter(o options) (*meter, error) {
	if _, err := os.Stat(o.timeBin); err != nil {
		return nil, fmt.Errorf("GNU time is needed (apt-get install time): %w", err)
	}
	// The same wrapper and measurements as scripts/bench/main.go.
	tm, err := tfbench.NewMeter(o.work, "provider-usage", o.timeBin, o.provider)
	if err != nil {
		return nil, err
	}
	return &meter{o: o, tm: tm, version: tfbench.FirstLine(exec.Command(o.terraform, "version").Output())}, nil
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
	if err := m.tm.Reset(); err != nil {
		return sample{}, err
	}
	argv := append(m.tm.TimeArgv(), m.o.terraform)
	argv = append(argv, args...)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir, cmd.Env = dir, m.tm.Env
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
	code, err := tfbench.ExitCode(err)
	if err != nil {
		return s, err
	}
	if code != wantExit {
		return s, fmt.Errorf("terraform %s exited with %d (want %d):\n%s", strings.Join(args, " "), code, wantExit, tfbench.Tail(out.String(), 4000))
	}
	if s.tfRSS, s.total, err = m.tm.TerraformUsage(); err != nil {
		return s, err
	}
	if s.provRSS, s.prov, s.nProc, err = m.tm.ProviderUsage(); err != nil {
		return s, err
	}
	return s, nil
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "slope: "+format+"\n", args...)
}

func numCPU() int { return runtime.NumCPU() }
