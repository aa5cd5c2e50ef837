// Command bench is the Terraform-level benchmark of issue #7, run by scripts/bench/run.sh
// (`make bench`): for N LeaderWorkerSets, DisaggregatedSets and PriorityLevelConfigurations it times
// `terraform plan` of new objects (provider pointed at an unreachable host), `terraform apply`,
// a no-change `terraform plan` and `terraform destroy` against a running API server, records
// the provider's and Terraform's peak RSS and CPU time, times kubectl doing the same work as
// the floor, counts the provider's Kubernetes API requests per object in one extra, untimed
// cycle with debug logging, and writes a markdown table (bench.md), the raw samples
// (bench.tsv, requests.tsv) and a plot (bench.png, with gnuplot) to the results folder.
//
// The provider's resource usage comes from a wrapper script that dev_overrides points at: it
// runs the real provider under GNU time (/usr/bin/time), which writes the peak RSS and CPU
// time of each provider process Terraform starts. Terraform itself runs under GNU time too.
package main

import (
	"bufio"
	"cmp"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kubeinfer/terraform-provider-kubeinfer/scripts/bench/internal/tfbench"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

type options struct {
	provider, kubeconfig, terraform, kubectl, gnuplot, timeBin string
	work, out, note                                            string
	runs, parallelism                                          int
	lws, plc, ds                                               []int
}

func run() error {
	var o options
	var lws, plc, ds string
	flag.StringVar(&o.provider, "provider", "", "provider binary (required)")
	// controller-runtime's pkg/client/config (v0.25, imported through internal/acctest) registers
	// -kubeconfig on the default flag set in its init: the driver reads that flag then.
	if flag.Lookup("kubeconfig") == nil {
		flag.StringVar(&o.kubeconfig, "kubeconfig", "", "kubeconfig of the running cluster (required)")
	}
	flag.StringVar(&o.terraform, "terraform", "terraform", "Terraform CLI")
	flag.StringVar(&o.kubectl, "kubectl", "kubectl", "kubectl, for the floor")
	flag.StringVar(&o.gnuplot, "gnuplot", "gnuplot", "gnuplot, for bench.png (skipped when not found)")
	flag.StringVar(&o.timeBin, "time", "/usr/bin/time", "GNU time, to measure the provider's peak RSS")
	flag.StringVar(&o.work, "work", "", "scratch folder (default: a temporary folder)")
	flag.StringVar(&o.out, "out", "results", "results folder")
	flag.IntVar(&o.runs, "runs", 3, "runs per operation (the median is reported)")
	flag.IntVar(&o.parallelism, "parallelism", 10, "terraform plan/apply/destroy -parallelism (Terraform's default: 10)")
	flag.StringVar(&lws, "lws", "1,20,100", "numbers of LeaderWorkerSets (0: none)")
	flag.StringVar(&plc, "plc", "20,100", "numbers of PriorityLevelConfigurations (0: none)")
	flag.StringVar(&ds, "ds", "20", "numbers of DisaggregatedSets, prefill/decode pairs (0: none)")
	flag.StringVar(&o.note, "note", "", "a remark about the machine or the run, written into bench.md")
	emit := flag.String("emit", "", "only write the configurations and manifests of every case under this folder (for profiling by hand)")
	flag.Parse()
	if o.kubeconfig == "" {
		o.kubeconfig = flag.Lookup("kubeconfig").Value.String()
	}
	if *emit != "" {
		return emitCases(*emit, o.kubeconfig, lws, plc, ds)
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
	if o.ds, err = parseInts(ds); err != nil {
		return fmt.Errorf("-ds: %w", err)
	}
	if o.runs < 1 {
		return errors.New("-runs must be at least 1")
	}
	if o.parallelism < 1 {
		return errors.New("-parallelism must be at least 1")
	}
	if len(o.lws)+len(o.plc)+len(o.ds) == 0 {
		return errors.New("nothing to measure: -lws, -plc and -ds are all 0")
	}
	for _, p := range []*string{&o.provider, &o.kubeconfig} {
		if *p, err = filepath.Abs(*p); err != nil {
			return err
		}
	}
	var removeWork func()
	if o.work, removeWork, err = tfbench.WorkDir(o.work, "kubeinfer-bench-"); err != nil {
		return err
	}
	defer removeWork()
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return err
	}

	b, err := newBench(o)
	if err != nil {
		return err
	}
	b.loadBefore = tfbench.LoadAverage()
	start := time.Now()
	for _, c := range b.cases() {
		if err := b.runCase(c); err != nil {
			return fmt.Errorf("%s N=%d: %w", c.kind.Name, c.n, err)
		}
	}
	b.elapsed = time.Since(start)
	b.loadAfter = tfbench.LoadAverage()
	logf("measured in %s", b.elapsed.Round(time.Second))
	return b.report()
}

func emitCases(dir, kubeconfig, lws, plc, ds string) error {
	b := &bench{}
	var err error
	if b.o.lws, err = parseInts(lws); err != nil {
		return err
	}
	if b.o.plc, err = parseInts(plc); err != nil {
		return err
	}
	if b.o.ds, err = parseInts(ds); err != nil {
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

// parseInts parses a comma-separated list of object counts; 0 (or an empty list) means none
// of that kind.
func parseInts(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		n, err := strconv.Atoi(f)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("%q is not a number of objects", f)
		}
		if n > 0 {
			out = append(out, n)
		}
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
	// Peak RSS that GNU time reports for the terraform process (Terraform only). The kernel
	// reports the largest of the process and the children it waited for, so this is
	// Terraform's own peak only when it is above the provider's (tfRSSOwn); otherwise
	// Terraform's own peak is at most this.
	tfRSSKiB int64
}

// tfRSSOwn reports whether tfRSSKiB is Terraform's own peak RSS rather than, possibly, a
// provider process's.
func (s sample) tfRSSOwn() bool { return s.tfRSSKiB > s.rssKiB }

type result struct {
	tf, floor []sample
	requests  *requestCount // from the extra, logged cycle (Terraform only)
}

// requestCount is what the provider logged ("Kubernetes API request") in one Terraform command.
type requestCount struct {
	total, retries int
	byVerb         map[string]int // "METHOD status", e.g. "GET 404"
	byRPC          map[string]int // "tf_rpc\tMETHOD\tstatus", for requests.tsv
	logLines       int
	wall           time.Duration // of the logged command (not reported as a timing)
	warning        string
}

type bench struct {
	o                     options
	env                   []string // environment of terraform and kubectl
	meter                 *tfbench.Meter
	results               map[caseKey]map[string]*result
	versions              map[string]string
	loadBefore, loadAfter string
	elapsed               time.Duration
}

func newBench(o options) (*bench, error) {
	b := &bench{o: o, results: map[caseKey]map[string]*result{}, versions: map[string]string{}}
	if err := os.MkdirAll(filepath.Join(o.work, "kubectl-cache"), 0o755); err != nil {
		return nil, err
	}
	if _, err := os.Stat(o.timeBin); err != nil {
		return nil, fmt.Errorf("GNU time is needed to measure the provider's RSS (apt-get install time): %w", err)
	}
	var err error
	if b.meter, err = tfbench.NewMeter(o.work, "rss", o.timeBin, o.provider); err != nil {
		return nil, err
	}
	b.env = append(slices.Clip(b.meter.Env), "KUBECONFIG="+o.kubeconfig)
	b.versions["terraform"] = tfbench.FirstLine(exec.Command(o.terraform, "version").Output())
	b.versions["kubectl"] = tfbench.FirstLine(exec.Command(o.kubectl, "version", "--client").Output())
	return b, nil
}

func (b *bench) cases() []benchCase {
	var cs []benchCase
	for _, n := range b.o.lws {
		cs = append(cs, benchCase{lwsKind, n})
	}
	for _, n := range b.o.ds {
		cs = append(cs, benchCase{dsKind, n})
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
// destroy with Terraform, each from empty state and an empty cluster, then the same with kubectl;
// then one more Terraform cycle, untimed, with the provider's debug log on to count its
// Kubernetes API requests (logging would skew the timings).
func (b *bench) runCase(c benchCase) error {
	dir := filepath.Join(b.o.work, fmt.Sprintf("%s-%d", strings.ToLower(c.kind.Name), c.n))
	offline, online := filepath.Join(dir, "offline"), filepath.Join(dir, "online")
	if err := writeCase(dir, c, b.o.kubeconfig); err != nil {
		return err
	}
	yamlPath := filepath.Join(dir, "objects.yaml")
	par := fmt.Sprintf("-parallelism=%d", b.o.parallelism)

	type step struct {
		op  string
		run func(logPath string) (sample, error)
	}
	// -detailed-exitcode: 2 means changes (expected for new objects), 0 none.
	steps := []step{
		{opPlan, func(l string) (sample, error) {
			return b.terraform(offline, 2, l, "plan", "-input=false", "-no-color", "-detailed-exitcode", par)
		}},
		{opApply, func(l string) (sample, error) {
			return b.terraform(online, 0, l, "apply", "-input=false", "-no-color", "-auto-approve", par)
		}},
		{opNoop, func(l string) (sample, error) {
			return b.terraform(online, 0, l, "plan", "-input=false", "-no-color", "-detailed-exitcode", par)
		}},
		{opDestroy, func(l string) (sample, error) {
			return b.terraform(online, 0, l, "destroy", "-input=false", "-no-color", "-auto-approve", par)
		}},
	}
	kubectl := func(wantExit int, args ...string) (sample, error) {
		args = append(args, "-f", yamlPath, "--cache-dir", filepath.Join(b.o.work, "kubectl-cache"))
		return b.command(dir, wantExit, b.o.kubectl, args...)
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
	resetState := func() {
		for _, f := range []string{"terraform.tfstate", "terraform.tfstate.backup"} {
			_ = os.Remove(filepath.Join(online, f))
		}
	}
	for r := 1; r <= b.o.runs; r++ {
		logf("%s N=%d run %d/%d", c.kind.Name, c.n, r, b.o.runs)
		resetState()
		for _, s := range steps {
			smp, err := s.run("")
			if err != nil {
				return fmt.Errorf("terraform, %s: %w", s.op, err)
			}
			b.result(c, s.op).tf = append(b.result(c, s.op).tf, smp)
			logf("  terraform %-42s %6.2f s  provider %5.1f MiB, %5.2f s CPU, %d process(es); terraform %s MiB, %5.2f s CPU%s", s.op, smp.wall.Seconds(),
				float64(smp.rssKiB)/1024, smp.cpu.Seconds(), smp.nProc, tfRSS(smp), (smp.total - smp.cpu).Seconds(), suffix(smp.warning))
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

	logf("%s N=%d: one more cycle, untimed, with TF_LOG_PROVIDER=debug to count API requests", c.kind.Name, c.n)
	resetState()
	logDir := filepath.Join(dir, "logs")
	if err := os.MkdirAll(logDir, 0o755); err != nil {
		return err
	}
	for i, s := range steps {
		logPath := filepath.Join(logDir, fmt.Sprintf("%d-%s.log", i+1, opSlug(s.op)))
		_ = os.Remove(logPath)
		smp, err := s.run(logPath)
		if err != nil {
			return fmt.Errorf("terraform with debug log, %s: %w", s.op, err)
		}
		rc, err := countRequests(logPath)
		if err != nil {
			return fmt.Errorf("terraform with debug log, %s: %w", s.op, err)
		}
		if rc.logLines == 0 {
			return fmt.Errorf("terraform with debug log, %s: %s is empty: did TF_LOG_PROVIDER/TF_LOG_PATH take effect?", s.op, logPath)
		}
		if s.op != opPlan && rc.total == 0 {
			smp.warning = strings.TrimPrefix(smp.warning+"; no \"Kubernetes API request\" in the debug log", "; ")
		}
		rc.wall, rc.warning = smp.wall, smp.warning
		b.result(c, s.op).requests = rc
		logf("  terraform %-42s %6.2f s (logged, not reported)  %d requests, %.2f per object, %d retries: %s%s", s.op, smp.wall.Seconds(),
			rc.total, float64(rc.total)/float64(c.n), rc.retries, rc.verbs(), suffix(smp.warning))
	}
	return nil
}

func opSlug(op string) string {
	return map[string]string{opPlan: "plan-offline", opApply: "apply", opNoop: "plan-nochange", opDestroy: "destroy"}[op]
}

func tfRSS(s sample) string {
	v := fmt.Sprintf("%5.1f", float64(s.tfRSSKiB)/1024)
	if !s.tfRSSOwn() {
		return "≤" + v
	}
	return v
}

// The provider's request line and its retry line, in hclog's text format as Terraform writes it
// to TF_LOG_PATH, e.g.
//
//	... [DEBUG] provider.terraform-provider-kubeinfer: Kubernetes API request: @module=kubeinfer attempts=1 duration_ms=4 method=GET path=/... status=200 tf_rpc=ReadResource ...
var fieldRE = regexp.MustCompile(`(?:^|\s)(method|status|tf_rpc)=("(?:[^"\\]|\\.)*"|\S*)`)

const (
	requestMessage = "Kubernetes API request"
	retryMessage   = "Retrying a Kubernetes API request"
)

// countRequests counts the provider's "Kubernetes API request" lines in a Terraform log file,
// by method and status. The retry lines ("Retrying a Kubernetes API request") are counted
// apart: each request is logged once when it is done, whatever its attempts.
func countRequests(path string) (*requestCount, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	rc := &requestCount{byVerb: map[string]int{}, byRPC: map[string]int{}}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		line := sc.Text()
		rc.logLines++
		if !strings.Contains(line, requestMessage) {
			continue
		}
		if strings.Contains(line, retryMessage) {
			rc.retries++
			continue
		}
		fields := map[string]string{"method": "?", "status": "-", "tf_rpc": "?"}
		for _, m := range fieldRE.FindAllStringSubmatch(line, -1) {
			fields[m[1]] = strings.Trim(m[2], `"`)
		}
		rc.total++
		rc.byVerb[fields["method"]+" "+fields["status"]]++
		rc.byRPC[fields["tf_rpc"]+"\t"+fields["method"]+"\t"+fields["status"]]++
	}
	return rc, sc.Err()
}

// verbs is the breakdown by method and status, most frequent first: "GET 200: 300, PATCH 201: 300".
func (rc *requestCount) verbs() string {
	if rc == nil || rc.total == 0 {
		return "none"
	}
	keys := make([]string, 0, len(rc.byVerb))
	for k := range rc.byVerb {
		keys = append(keys, k)
	}
	sortByCount(keys, rc.byVerb)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s: %d", k, rc.byVerb[k])
	}
	return strings.Join(parts, ", ")
}

func sortByCount(keys []string, counts map[string]int) {
	slices.SortFunc(keys, func(a, b string) int {
		if c := cmp.Compare(counts[b], counts[a]); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
}

func suffix(w string) string {
	if w == "" {
		return ""
	}
	return "  WARNING: " + w
}

// terraform runs one Terraform command under GNU time and collects its and the provider
// processes' usage. With logPath, the provider logs at debug level to that file.
func (b *bench) terraform(dir string, wantExit int, logPath string, args ...string) (sample, error) {
	if err := b.meter.Reset(); err != nil {
		return sample{}, err
	}
	env := b.env
	if logPath != "" {
		env = append(slices.Clip(env), "TF_LOG_PROVIDER=debug", "TF_LOG_PATH="+logPath)
	}
	s, err := b.run(dir, wantExit, env, b.meter.TimeArgv(), b.o.terraform, args...)
	if err != nil {
		return s, err
	}
	if s.tfRSSKiB, _, err = b.meter.TerraformUsage(); err != nil {
		return s, err
	}
	s.rssKiB, s.cpu, s.nProc, err = b.meter.ProviderUsage()
	return s, err
}

// command runs a command and times it.
func (b *bench) command(dir string, wantExit int, name string, args ...string) (sample, error) {
	return b.run(dir, wantExit, b.env, nil, name, args...)
}

// run runs name with args, after the words of wrap when there are any, and times it. An exit
// status other than wantExit fails the run, except a no-change check that finds changes
// (exit 2 of plan -detailed-exitcode, 1 of kubectl diff), which is recorded as a warning: the
// time is still meaningful. (GNU time exits with its command's status.)
func (b *bench) run(dir string, wantExit int, env, wrap []string, name string, args ...string) (sample, error) {
	argv := append(slices.Clone(wrap), name)
	argv = append(argv, args...)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = env
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	err := cmd.Run()
	s := sample{wall: time.Since(start)}
	if cmd.ProcessState != nil {
		s.total = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	code, err := tfbench.ExitCode(err)
	if err != nil {
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
	return s, fmt.Errorf("%s %s exited with %d (want %d):\n%s", name, strings.Join(args, " "), code, wantExit, tfbench.Tail(out.String(), 4000))
}

func numCPU() int { return runtime.NumCPU() }
