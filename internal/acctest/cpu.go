package acctest

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// cpuUse is the CPU time that went to the parts of one run under a CLI: the CLI's commands,
// the test process itself (the in-process provider and the harness), and each process of the
// test clusters by name (kube-apiserver, etcd, ...). A warm make test is CPU-bound on 2 cores,
// so these, not the wall clock, tell where its time goes; Terraform's share is a floor that
// only fewer commands lower.
type cpuUse struct {
	cli, self time.Duration
	cluster   map[string]time.Duration
}

// cpuSample is what the kernel reports at one moment.
type cpuSample struct {
	self, children time.Duration      // getrusage(2) RUSAGE_SELF and RUSAGE_CHILDREN
	running        map[int]processCPU // the live child processes, by pid
}

// processCPU is one live child process: its name and the CPU it has used since it started.
type processCPU struct {
	name string
	cpu  time.Duration
}

// takeCPUSample reads the rusage of this process and its waited-for children, and the CPU
// time of each live child process (/proc/PID/stat; none where /proc is missing).
func takeCPUSample() cpuSample {
	s := cpuSample{running: liveChildren()}
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		s.self = rusageCPU(ru)
	}
	if syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru) == nil {
		s.children = rusageCPU(ru)
	}
	return s
}

func rusageCPU(ru syscall.Rusage) time.Duration {
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// since attributes the CPU used between the samples before and s. A child alive at s is a
// cluster process, counted by its name; the children that exited in between are the CLI's
// commands (RUSAGE_CHILDREN grows by their CPU when they are waited for), less what a cluster
// process stopped in between (the fault suite's restarted kube-apiserver) had used before.
func (s cpuSample) since(before cpuSample) cpuUse {
	u := cpuUse{self: s.self - before.self, cluster: map[string]time.Duration{}}
	exited := s.children - before.children
	for pid, now := range s.running {
		was := before.running[pid] // zero for a process started during the run (a cluster's first start)
		u.cluster[now.name] += now.cpu - was.cpu
	}
	for pid, was := range before.running {
		if _, ok := s.running[pid]; !ok {
			// Stopped in between: its CPU before the first sample is in the exited children's
			// total but belongs to no one in this run.
			exited -= was.cpu
		}
	}
	if exited > 0 {
		u.cli = exited
	}
	return u
}

// clusterTotal is the CPU of the cluster processes together.
func (u cpuUse) clusterTotal() time.Duration {
	var sum time.Duration
	for _, d := range u.cluster {
		sum += d
	}
	return sum
}

// String is one line: the CLI, the test process, the cluster and its largest parts.
func (u cpuUse) String() string {
	names := make([]string, 0, len(u.cluster))
	for n := range u.cluster {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool { return u.cluster[names[i]] > u.cluster[names[j]] })
	var parts []string
	for _, n := range names {
		if u.cluster[n] >= 500*time.Millisecond {
			parts = append(parts, fmt.Sprintf("%s %.1f", n, u.cluster[n].Seconds()))
		}
	}
	s := fmt.Sprintf("CPU s: CLI commands %.1f, test process %.1f, cluster %.1f", u.cli.Seconds(), u.self.Seconds(), u.clusterTotal().Seconds())
	if len(parts) > 0 {
		s += " (" + strings.Join(parts, ", ") + ")"
	}
	return s
}

// clockTicks is the unit of the CPU times in /proc/PID/stat (USER_HZ, 100 on Linux).
const clockTicks = 100

// liveChildren reads /proc for the processes whose parent is this one: the cluster's
// components, etcd and kube-apiserver (and a CLI command, if one is running).
func liveChildren() map[int]processCPU {
	out := map[int]processCPU{}
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	self := os.Getpid()
	for _, path := range stats {
		data, err := os.ReadFile(path)
		if err != nil {
			continue // exited meanwhile
		}
		pid, p, ok := parseProcStat(string(data), self)
		if !ok {
			continue
		}
		// comm is cut at 15 bytes (kube-controller); the command line has the whole name.
		if argv, err := os.ReadFile(filepath.Join(filepath.Dir(path), "cmdline")); err == nil {
			if name, _, _ := strings.Cut(string(argv), "\x00"); name != "" {
				p.name = filepath.Base(name)
			}
		}
		out[pid] = p
	}
	return out
}

// parseProcStat reads pid, name, parent and CPU time from one /proc/PID/stat line (proc(5)):
// "pid (comm) state ppid ... utime stime ...", where comm may hold spaces and parentheses.
func parseProcStat(line string, parent int) (int, processCPU, bool) {
	open, closing := strings.IndexByte(line, '('), strings.LastIndexByte(line, ')')
	if open < 0 || closing < open {
		return 0, processCPU{}, false
	}
	pid, err := strconv.Atoi(strings.TrimSpace(line[:open]))
	if err != nil {
		return 0, processCPU{}, false
	}
	// After comm: state(3) ppid(4) ... utime(14) stime(15), counted from the state field.
	fields := strings.Fields(line[closing+1:])
	if len(fields) < 13 {
		return 0, processCPU{}, false
	}
	ppid, err1 := strconv.Atoi(fields[1])
	utime, err2 := strconv.ParseInt(fields[11], 10, 64)
	stime, err3 := strconv.ParseInt(fields[12], 10, 64)
	if err1 != nil || err2 != nil || err3 != nil || ppid != parent {
		return 0, processCPU{}, false
	}
	cpu := time.Duration(utime+stime) * time.Second / clockTicks
	return pid, processCPU{name: line[open+1 : closing], cpu: cpu}, true
}
