package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// writeResults writes cli.tsv (one line per case) and cli.md (a table per command) to o.out.
func writeResults(o options, version string, samples []sample, loadBefore, loadAfter string, elapsed time.Duration) error {
	var tsv strings.Builder
	tsv.WriteString("command\tdim\tn\tmain_tf_bytes\truns\twall_s\tterraform_cpu_s\tprovider_cpu_s\tprovider_processes\tprovider_rss_kib\tterraform_rss_kib\tnote\n")
	for _, s := range samples {
		if s.skipped != "" {
			fmt.Fprintf(&tsv, "%s\t%s\t%d\t%d\t\t\t\t\t\t\t\t%s\n", s.op, s.dim, s.n, s.bytes, s.skipped)
			continue
		}
		fmt.Fprintf(&tsv, "%s\t%s\t%d\t%d\t%d\t%.3f\t%.3f\t%.3f\t%d\t%d\t%d\t\n", s.op, s.dim, s.n, s.bytes, s.runs,
			s.wall.Seconds(), s.tfOwn().Seconds(), s.prov.Seconds(), s.nProc, s.provRSS, s.tfRSS)
	}
	if err := os.WriteFile(filepath.Join(o.out, "cli.tsv"), []byte(tsv.String()), 0o644); err != nil {
		return err
	}

	intro := fmt.Sprintf("# CPU of `terraform validate` and an offline `terraform plan` of one LeaderWorkerSet\n\n"+
		"Written by `scripts/bench/slope/run.sh`. %s; %d core(s); load average %s before, %s after; measured in %s; "+
		"%d run(s) per case, the one with the least total CPU reported.\n\n"+
		"Terraform CPU: user+system of `terraform` (which includes the provider processes it waited for) minus the "+
		"provider's; provider CPU: user+system of every provider process (GNU time through the dev_overrides wrapper); "+
		"share: the provider's part of the two. Per item: the CPU difference to the smallest N divided by the difference "+
		"in N; marginal: the same to the previous N. GNU time counts in 10 ms steps, so a per-item figure over a few "+
		"hundred items is ±0.02-0.1 ms.\n", version, numCPU(), loadBefore, loadAfter, elapsed.Round(time.Second), o.runs)
	md := intro + tables(o.ops, o.dims, samples)
	if err := os.WriteFile(filepath.Join(o.out, "cli.md"), []byte(md), 0o644); err != nil {
		return err
	}
	logf("wrote %s and %s", filepath.Join(o.out, "cli.tsv"), filepath.Join(o.out, "cli.md"))
	return nil
}

// tables is the markdown table of each command.
func tables(ops, dimOrder []string, samples []sample) string {
	var md strings.Builder
	for _, op := range ops {
		fmt.Fprintf(&md, "\n## terraform %s\n\n", op)
		md.WriteString("| items | N | main.tf KiB | wall s | Terraform CPU s | provider CPU s | provider share " +
			"| Terraform ms/item | provider ms/item | Terraform ms/item (marginal) | provider ms/item (marginal) " +
			"| provider processes | provider peak RSS MiB |\n")
		md.WriteString("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n")
		for _, d := range dimOrder {
			var first, prev *sample
			for i := range samples {
				s := &samples[i]
				if s.op != op || s.dim != d {
					continue
				}
				if s.skipped != "" {
					size := ""
					if s.bytes > 0 {
						size = fmt.Sprintf("%.0f", float64(s.bytes)/1024)
					}
					fmt.Fprintf(&md, "| %s | %d | %s | %s | | | | | | | | | |\n", d, s.n, size, s.skipped)
					continue
				}
				perItem := func(from *sample) (string, string) {
					if from == nil || s.n <= from.n {
						return "", ""
					}
					dn := float64(s.n - from.n)
					return fmt.Sprintf("%.2f", (s.tfOwn()-from.tfOwn()).Seconds()*1000/dn),
						fmt.Sprintf("%.2f", (s.prov-from.prov).Seconds()*1000/dn)
				}
				atf, apr := perItem(first)
				mtf, mpr := perItem(prev)
				fmt.Fprintf(&md, "| %s | %d | %.0f | %.2f | %.2f | %.2f | %.1f %% | %s | %s | %s | %s | %d | %.1f |\n", d, s.n,
					float64(s.bytes)/1024, s.wall.Seconds(), s.tfOwn().Seconds(), s.prov.Seconds(),
					100*s.prov.Seconds()/s.total.Seconds(), atf, apr, mtf, mpr, s.nProc, float64(s.provRSS)/1024)
				if first == nil {
					first = s
				}
				prev = s
			}
		}
	}
	return md.String()
}

// render rewrites the tables of dir/cli.md from dir/cli.tsv, keeping the introduction (what
// comes before the first table) of the cli.md that is there.
func render(dir string) error {
	data, err := os.ReadFile(filepath.Join(dir, "cli.tsv"))
	if err != nil {
		return err
	}
	var samples []sample
	var ops, dimOrder []string
	secs := func(v string) time.Duration {
		f, _ := strconv.ParseFloat(v, 64)
		return time.Duration(f * float64(time.Second))
	}
	for i, line := range strings.Split(strings.TrimRight(string(data), "\n"), "\n") {
		f := strings.Split(line, "\t")
		if i == 0 {
			continue
		}
		if len(f) != 12 {
			return fmt.Errorf("cli.tsv line %d: %d fields, want 12", i+1, len(f))
		}
		s := sample{op: f[0], dim: f[1], skipped: f[11]}
		s.n, _ = strconv.Atoi(f[2])
		s.bytes, _ = strconv.Atoi(f[3])
		s.runs, _ = strconv.Atoi(f[4])
		s.wall, s.prov = secs(f[5]), secs(f[7])
		s.total = secs(f[6]) + s.prov
		s.nProc, _ = strconv.Atoi(f[8])
		s.provRSS, _ = strconv.ParseInt(f[9], 10, 64)
		s.tfRSS, _ = strconv.ParseInt(f[10], 10, 64)
		samples = append(samples, s)
		if !slices.Contains(ops, s.op) {
			ops = append(ops, s.op)
		}
		if !slices.Contains(dimOrder, s.dim) {
			dimOrder = append(dimOrder, s.dim)
		}
	}
	old, err := os.ReadFile(filepath.Join(dir, "cli.md"))
	if err != nil {
		return err
	}
	intro, _, _ := strings.Cut(string(old), "\n## ")
	intro = strings.TrimRight(intro, "\n") + "\n"
	return os.WriteFile(filepath.Join(dir, "cli.md"), []byte(intro+tables(ops, dimOrder, samples)), 0o644)
}

var benchLine = regexp.MustCompile(`^BenchmarkPlanCreateScale/(\w+)=(\d+)(?:-\d+)?\s+\d+\s+(\d+(?:\.\d+)?) ns/op.*?\s(\d+) B/op\s+(\d+) allocs/op`)

// goBenchTable prints, from the output of BenchmarkPlanCreateScale (any -count), the fastest and
// the median ns/op of each case, its allocations, and the marginal cost per item between sizes.
func goBenchTable(path string, w io.Writer) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	type key struct {
		dim string
		n   int
	}
	type runs struct {
		ns            []float64
		bytes, allocs float64
	}
	data := map[key]*runs{}
	var order []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		m := benchLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		n, _ := strconv.Atoi(m[2])
		ns, _ := strconv.ParseFloat(m[3], 64)
		b, _ := strconv.ParseFloat(m[4], 64)
		a, _ := strconv.ParseFloat(m[5], 64)
		k := key{m[1], n}
		if data[k] == nil {
			data[k] = &runs{}
		}
		if !slices.Contains(order, m[1]) {
			order = append(order, m[1])
		}
		r := data[k]
		r.ns = append(r.ns, ns)
		r.bytes, r.allocs = b, a
	}
	if err := sc.Err(); err != nil {
		return err
	}
	fmt.Fprintln(w, "| items | N | samples | ns/op (fastest) | ns/op (median) | marginal µs/item (fastest) | allocs/op | marginal allocs/item | B/op | marginal B/item |")
	fmt.Fprintln(w, "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
	for _, d := range order {
		var ns []int
		for k := range data {
			if k.dim == d {
				ns = append(ns, k.n)
			}
		}
		slices.Sort(ns)
		var prev *runs
		prevN := 0
		for _, n := range ns {
			r := data[key{d, n}]
			slices.Sort(r.ns)
			fast, med := r.ns[0], r.ns[len(r.ns)/2]
			mt, ma, mb := "", "", ""
			if prev != nil {
				dn := float64(n - prevN)
				mt = fmt.Sprintf("%.1f", (fast-prev.ns[0])/dn/1000)
				ma = fmt.Sprintf("%.0f", (r.allocs-prev.allocs)/dn)
				mb = fmt.Sprintf("%.0f", (r.bytes-prev.bytes)/dn)
			}
			fmt.Fprintf(w, "| %s | %d | %d | %s | %s | %s | %s | %s | %s | %s |\n", d, n, len(r.ns), group(fast), group(med), mt, group(r.allocs), ma, group(r.bytes), mb)
			prev, prevN = r, n
		}
	}
	return nil
}

// group writes a number with thousands separators.
func group(v float64) string {
	s := strconv.FormatFloat(v, 'f', 0, 64)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}
