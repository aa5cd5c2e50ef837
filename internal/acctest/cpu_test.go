package acctest

import (
	"os"
	"os/exec"
	"testing"
	"time"
)

func TestParseProcStat(t *testing.T) {
	line := "4242 (kube-controller) S 77 4242 77 0 -1 4194560 100 0 0 0 1234 56 0 0 20 0 12 0 900 0 0"
	pid, p, ok := parseProcStat(line, 77)
	if !ok || pid != 4242 || p.name != "kube-controller" || p.cpu != 12900*time.Millisecond {
		t.Fatalf("parseProcStat = %d, %+v, %v; want 4242, kube-controller, 12.9 s, true", pid, p, ok)
	}
	if _, _, ok := parseProcStat(line, 78); ok {
		t.Error("a process of another parent was read as a child")
	}
	// comm may hold spaces and parentheses: the last ')' ends it.
	if pid, p, ok := parseProcStat("7 (a (b) c) R 77 0 0 0 0 0 0 0 0 0 300 200 0", 77); !ok || pid != 7 || p.name != "a (b) c" || p.cpu != 5*time.Second {
		t.Errorf("comm with parentheses: %d, %+v, %v", pid, p, ok)
	}
	for _, bad := range []string{"", "7 (x", "x (y) R 77", "7 (y) R 77 1 2"} {
		if _, _, ok := parseProcStat(bad, 77); ok {
			t.Errorf("parseProcStat(%q) accepted a malformed line", bad)
		}
	}
}

// TestCPUSampleSince runs a short busy child to completion between two samples: its CPU is
// the CLI's share, and a child alive at the second sample is the cluster's.
func TestCPUSampleSince(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc on this system: the CPU shares are not reported here")
	}
	sleeper := exec.Command("sleep", "30")
	if err := sleeper.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = sleeper.Process.Kill(); _ = sleeper.Wait() }()

	before := takeCPUSample()
	busy := exec.Command("sh", "-c", "i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done")
	if err := busy.Run(); err != nil {
		t.Fatal(err)
	}
	u := takeCPUSample().since(before)
	if u.cli <= 0 {
		t.Errorf("the busy command's CPU was not counted as the CLI's: %s", u)
	}
	if _, ok := u.cluster["sleep"]; !ok {
		t.Errorf("the live child is not among the cluster's processes: %s", u)
	}
}
