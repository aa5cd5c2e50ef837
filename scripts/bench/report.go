package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Targets of issue #7 (medians).
const rssTargetMiB = 60

type targetKey struct {
	kind string
	op   string
	n    int
}

var timeTargets = map[targetKey]float64{
	{"LWS", opPlan, 20}:    0.9,
	{"LWS", opPlan, 100}:   3,
	{"LWS", opApply, 20}:   1.5,
	{"LWS", opNoop, 20}:    1,
	{"LWS", opDestroy, 20}: 3,
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func seconds(ss []sample) []float64 {
	out := make([]float64, len(ss))
	for i, s := range ss {
		out[i] = s.wall.Seconds()
	}
	return out
}

type row struct {
	c                   benchCase
	op                  string
	med, lo, hi, floor  float64
	rssMiB, cpuS, tfCPU float64
	tfRSSMiB            float64
	tfRSSOwn            bool // tfRSSMiB is Terraform's own peak (above every provider process's)
	targets, verdict    []string
	warnings            int
	procs               int
	requests            *requestCount
}

func (b *bench) rows() []row {
	var rows []row
	for _, c := range b.cases() {
		for _, op := range operations {
			r := b.results[c.key()][op]
			if r == nil || len(r.tf) == 0 {
				continue
			}
			secs := seconds(r.tf)
			rw := row{c: c, op: op, med: median(secs), lo: slices.Min(secs), hi: slices.Max(secs), floor: median(seconds(r.floor))}
			var rss, cpu, tfCPU []float64
			rw.requests = r.requests
			rw.tfRSSOwn = true
			for _, s := range r.tf {
				if mib := float64(s.tfRSSKiB) / 1024; mib >= rw.tfRSSMiB {
					rw.tfRSSMiB, rw.tfRSSOwn = mib, s.tfRSSOwn()
				}
				rss = append(rss, float64(s.rssKiB)/1024)
				cpu = append(cpu, s.cpu.Seconds())
				tfCPU = append(tfCPU, (s.total - s.cpu).Seconds())
				rw.procs = max(rw.procs, s.nProc)
				if s.warning != "" {
					rw.warnings++
				}
			}
			for _, s := range r.floor {
				if s.warning != "" {
					rw.warnings++
				}
			}
			// Peak RSS: the largest of the runs, not the median.
			rw.rssMiB, rw.cpuS, rw.tfCPU = slices.Max(rss), median(cpu), median(tfCPU)
			if t, ok := timeTargets[targetKey{c.kind.Name, op, c.n}]; ok {
				rw.targets = append(rw.targets, fmt.Sprintf("< %.1f s", t))
				if rw.med < t {
					rw.verdict = append(rw.verdict, "pass")
				} else {
					rw.verdict = append(rw.verdict, fmt.Sprintf("**FAIL** (%.2f s)", rw.med))
				}
			}
			if c.n == 100 {
				rw.targets = append(rw.targets, fmt.Sprintf("RSS < %d MiB", rssTargetMiB))
				if rw.rssMiB < rssTargetMiB {
					rw.verdict = append(rw.verdict, "pass")
				} else {
					rw.verdict = append(rw.verdict, fmt.Sprintf("**FAIL** (%.0f MiB)", rw.rssMiB))
				}
			}
			if rw.warnings > 0 {
				rw.verdict = append(rw.verdict, fmt.Sprintf("**%d run(s) found changes**", rw.warnings))
			}
			rows = append(rows, rw)
		}
	}
	return rows
}

func (b *bench) report() error {
	rows := b.rows()
	var md strings.Builder
	host, _ := os.Hostname()
	fmt.Fprintf(&md, "# kubeinfer provider benchmark\n\n")
	fmt.Fprintf(&md, "%s on %s (%d CPUs); %s; %s; API server: local etcd + kube-apiserver (internal/acctest); %d run%s per operation, median reported; "+
		"`-parallelism=%d`.\n\n",
		time.Now().UTC().Format("2006-01-02 15:04 UTC"), host, numCPU(), b.versions["terraform"], b.versions["kubectl"], b.o.runs, plural(b.o.runs), b.o.parallelism)
	if b.loadBefore != "" {
		fmt.Fprintf(&md, "Load average (1, 5, 15 min) before the measurements: %s; after: %s; measured in %s.\n\n", b.loadBefore, b.loadAfter, b.elapsed.Round(time.Second))
	}
	if b.o.note != "" {
		fmt.Fprintf(&md, "Note: %s\n\n", b.o.note)
	}
	md.WriteString("| kind | operation | N | median s | min–max s | floor s | ratio | provider peak RSS MiB | terraform peak RSS MiB | provider CPU s | terraform CPU s | target | result |\n")
	md.WriteString("|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|---|\n")
	for _, r := range rows {
		ratio := "–"
		if r.floor > 0 {
			ratio = fmt.Sprintf("%.2f×", r.med/r.floor)
		}
		target, verdict := "–", "–"
		if len(r.targets) > 0 {
			target = strings.Join(r.targets, "; ")
		}
		if len(r.verdict) > 0 {
			verdict = strings.Join(r.verdict, "; ")
		}
		tfRSS := fmt.Sprintf("%.1f", r.tfRSSMiB)
		if !r.tfRSSOwn {
			tfRSS = "≤ " + tfRSS
		}
		fmt.Fprintf(&md, "| %s | %s | %d | %.2f | %.2f–%.2f | %.2f | %s | %.1f | %s | %.2f | %.2f | %s | %s |\n",
			r.c.kind.Name, r.op, r.c.n, r.med, r.lo, r.hi, r.floor, ratio, r.rssMiB, tfRSS, r.cpuS, r.tfCPU, target, verdict)
	}
	md.WriteString("\nKubernetes API requests of the provider, from one extra Terraform cycle per case with `TF_LOG_PROVIDER=debug` " +
		"and `TF_LOG_PATH` (not timed: the logging would skew the timings): the lines \"Kubernetes API request\" " +
		"(one per request, logged when it is done, whatever its attempts) by method and response status; " +
		"retries are the \"Retrying a Kubernetes API request\" lines.\n\n")
	md.WriteString("| kind | operation | N | requests | per object | by method and status | retries | logged run s |\n")
	md.WriteString("|---|---|--:|--:|--:|---|--:|--:|\n")
	for _, r := range rows {
		rc := r.requests
		if rc == nil {
			continue
		}
		fmt.Fprintf(&md, "| %s | %s | %d | %d | %.2f | %s | %d | %.2f%s |\n", r.c.kind.Name, r.op, r.c.n, rc.total,
			float64(rc.total)/float64(r.c.n), rc.verbs(), rc.retries, rc.wall.Seconds(), suffix(rc.warning))
	}
	md.WriteString("\nLWS: the vLLM LeaderWorkerSet of `lwsfixture.VLLM` (2 groups of size 4, two pod templates with GPUs, " +
		"probes, env from a Secret, a memory emptyDir and zone spreading), `wait_for_rollout = false`. " +
		"PLC: a `Limited` PriorityLevelConfiguration with queuing. " +
		"DS: the vLLM prefill/decode DisaggregatedSet of examples/disaggregated-serving (prefill: 2 groups of 1 pod; decode: 1 group of " +
		"a leader and a worker; 3 pod templates with GPUs, probes, env from a Secret, a memory emptyDir and the GPU toleration), " +
		"`wait_for_rollout = false`; the bench cluster has its CRD (from the release) but no controller.\n\n")
	if line := dsVsLWS(rows); line != "" {
		md.WriteString(line + "\n\n")
	}
	md.WriteString("Terraform: each cycle starts from empty state and an empty cluster. \"plan, new objects\" runs with the provider " +
		"configured for `https://127.0.0.1:1`, where nothing listens: it succeeds only because plans never contact the cluster. " +
		"The other operations use the running API server. " +
		parallelismNote(b.o.parallelism) + "\n\n")
	md.WriteString("Provider peak RSS: the largest of any provider process over the runs, from GNU time; terraform peak RSS: the largest " +
		"over the runs of what GNU time reports for the terraform process, which the kernel reports as the largest of the process and the " +
		"children it waited for (the provider processes): \"≤\" marks a figure that is not above the provider's and so may be the " +
		"provider's; Terraform's own peak is then at most that. Provider CPU: user + system " +
		"time of the provider processes (median); terraform CPU: user + system time of Terraform itself (its waited-for children minus the provider). " +
		"The machine's cores are shared with etcd and kube-apiserver.\n\n")
	md.WriteString("Floor (same objects as YAML, `kubectl --cache-dir` warm after the first run):\n\n")
	for _, op := range operations {
		fmt.Fprintf(&md, "- %s: `%s -f objects.yaml`\n", op, floorCommand[op])
	}
	if err := os.WriteFile(filepath.Join(b.o.out, "bench.md"), []byte(md.String()), 0o644); err != nil {
		return err
	}

	var tsv strings.Builder
	tsv.WriteString("kind\tN\toperation\ttool\trun\tseconds\tprovider_rss_mib\tprovider_cpu_s\tprovider_processes\tcommand_cpu_s\twarning\tterraform_rss_mib\n")
	for _, c := range b.cases() {
		for _, op := range operations {
			r := b.results[c.key()][op]
			if r == nil {
				continue
			}
			for i, s := range r.tf {
				fmt.Fprintf(&tsv, "%s\t%d\t%s\tterraform\t%d\t%.3f\t%.1f\t%.3f\t%d\t%.3f\t%s\t%.1f\n", c.kind.Name, c.n, op, i+1, s.wall.Seconds(),
					float64(s.rssKiB)/1024, s.cpu.Seconds(), s.nProc, s.total.Seconds(), s.warning, float64(s.tfRSSKiB)/1024)
			}
			for i, s := range r.floor {
				fmt.Fprintf(&tsv, "%s\t%d\t%s\tkubectl\t%d\t%.3f\t\t\t\t%.3f\t%s\t\n", c.kind.Name, c.n, op, i+1, s.wall.Seconds(), s.total.Seconds(), s.warning)
			}
		}
	}
	if err := os.WriteFile(filepath.Join(b.o.out, "bench.tsv"), []byte(tsv.String()), 0o644); err != nil {
		return err
	}

	var req strings.Builder
	req.WriteString("kind\tN\toperation\ttf_rpc\tmethod\tstatus\trequests\tper_object\n")
	for _, r := range rows {
		if r.requests == nil {
			continue
		}
		keys := make([]string, 0, len(r.requests.byRPC))
		for k := range r.requests.byRPC {
			keys = append(keys, k)
		}
		sortByCount(keys, r.requests.byRPC)
		for _, k := range keys {
			n := r.requests.byRPC[k]
			fmt.Fprintf(&req, "%s\t%d\t%s\t%s\t%d\t%.3f\n", r.c.kind.Name, r.c.n, r.op, k, n, float64(n)/float64(r.c.n))
		}
	}
	if err := os.WriteFile(filepath.Join(b.o.out, "requests.tsv"), []byte(req.String()), 0o644); err != nil {
		return err
	}
	fmt.Print(md.String())
	return b.plot(rows)
}

// plot writes bench.gp (data inline) and renders bench.png with gnuplot: one panel per kind,
// wall time against N, Terraform solid and the kubectl floor dashed in the same colour.
func (b *bench) plot(rows []row) error {
	var gp strings.Builder
	kinds := []string{}
	for _, c := range b.cases() {
		if !slices.Contains(kinds, c.kind.Name) {
			kinds = append(kinds, c.kind.Name)
		}
	}
	for ki, kind := range kinds {
		for oi, op := range operations {
			fmt.Fprintf(&gp, "$d%d_%d << EOD\n", ki, oi)
			for _, r := range rows {
				if r.c.kind.Name == kind && r.op == op {
					fmt.Fprintf(&gp, "%d %.3f %.3f\n", r.c.n, r.med, r.floor)
				}
			}
			gp.WriteString("EOD\n")
		}
	}
	png, err := filepath.Abs(filepath.Join(b.o.out, "bench.png"))
	if err != nil {
		return err
	}
	fmt.Fprintf(&gp, "set terminal pngcairo size %d,560 noenhanced font 'sans,10'\nset output %q\n", 620*len(kinds), png)
	fmt.Fprintf(&gp, "set multiplot layout 1,%d title 'kubeinfer: median wall time against N (solid: terraform, dashed: kubectl floor)'\n", len(kinds))
	// The x axis spans the measured N, with a tic at each.
	var ns []int
	for _, c := range b.cases() {
		if !slices.Contains(ns, c.n) {
			ns = append(ns, c.n)
		}
	}
	slices.Sort(ns)
	tics := make([]string, len(ns))
	for i, n := range ns {
		tics[i] = fmt.Sprint(n)
	}
	fmt.Fprintf(&gp, "set logscale x\nset xrange [%g:%g]\nset xtics (%s)\n", 0.8*float64(ns[0]), 1.3*float64(ns[len(ns)-1]), strings.Join(tics, ", "))
	// Head room above the data for the key.
	gp.WriteString("set xlabel 'N objects'\nset ylabel 'seconds'\nset yrange [0:*]\nset offsets 0, 0, graph 0.45, 0\nset grid\nset key top left\n")
	for ki, kind := range kinds {
		fmt.Fprintf(&gp, "set title '%s'\nplot \\\n", kind)
		var parts []string
		for oi, op := range operations {
			parts = append(parts,
				fmt.Sprintf("  $d%d_%d using 1:2 with linespoints lw 2 pt 7 lc %d title 'terraform %s'", ki, oi, oi+1, op),
				fmt.Sprintf("  $d%d_%d using 1:3 with linespoints lw 1 dt 2 pt 6 lc %d title '%s'", ki, oi, oi+1, floorCommand[op]))
		}
		gp.WriteString(strings.Join(parts, ", \\\n") + "\n")
	}
	gp.WriteString("unset multiplot\n")
	gpPath := filepath.Join(b.o.out, "bench.gp")
	if err := os.WriteFile(gpPath, []byte(gp.String()), 0o644); err != nil {
		return err
	}
	gnuplot, lookErr := exec.LookPath(b.o.gnuplot)
	if lookErr != nil {
		logf("gnuplot not found (%v): skipping bench.png (render it later with: gnuplot %s)", lookErr, gpPath)
		return nil
	}
	if out, err := exec.Command(gnuplot, gpPath).CombinedOutput(); err != nil {
		return fmt.Errorf("gnuplot %s: %w\n%s", gpPath, err, out)
	}
	logf("wrote %s, %s, %s, %s", filepath.Join(b.o.out, "bench.md"), filepath.Join(b.o.out, "bench.tsv"), filepath.Join(b.o.out, "requests.tsv"), png)
	return nil
}

func parallelismNote(p int) string {
	if p == 10 {
		return "`terraform plan`, `apply` and `destroy` run with `-parallelism=10` (Terraform's default)."
	}
	return fmt.Sprintf("`terraform plan`, `apply` and `destroy` run with `-parallelism=%d` (Terraform's default: 10).", p)
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// dsVsLWS is the line that sets the offline plan of N DisaggregatedSets beside that of N
// LeaderWorkerSets, for every N measured for both kinds (empty when there is none).
func dsVsLWS(rows []row) string {
	plan := map[string]map[int]row{}
	for _, r := range rows {
		if r.op != opPlan {
			continue
		}
		if plan[r.c.kind.Name] == nil {
			plan[r.c.kind.Name] = map[int]row{}
		}
		plan[r.c.kind.Name][r.c.n] = r
	}
	var parts []string
	for _, r := range rows {
		l, ok := plan["LWS"][r.c.n]
		if r.op != opPlan || r.c.kind.Name != "DS" || !ok {
			continue
		}
		parts = append(parts, fmt.Sprintf("%d DS %.2f s (provider CPU %.2f s, terraform CPU %.2f s) against %d LWS %.2f s (provider CPU %.2f s, terraform CPU %.2f s), %.2f×",
			r.c.n, r.med, r.cpuS, r.tfCPU, l.c.n, l.med, l.cpuS, l.tfCPU, r.med/l.med))
	}
	if len(parts) == 0 {
		return ""
	}
	return "Plan of new objects, DisaggregatedSets (two roles each) against LeaderWorkerSets: " + strings.Join(parts, "; ") + "."
}
