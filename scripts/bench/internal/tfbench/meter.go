// Package tfbench holds what the Terraform-level benchmark drivers (scripts/bench and
// scripts/bench/slope) share: running the provider under GNU time through dev_overrides and
// reading what GNU time wrote, and the HCL of the vLLM LeaderWorkerSet they both plan.
package tfbench

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Meter measures the provider's and Terraform's usage. Terraform finds the provider through a
// CLI configuration whose dev_overrides point at a wrapper script; the wrapper runs the real
// provider under GNU time, which writes each provider process's peak RSS and CPU time to
// UsageDir when it exits.
type Meter struct {
	TimeBin  string   // GNU time
	UsageDir string   // one provider.<pid> file per provider process
	TimeFile string   // GNU time's report on the terraform process, with TimeArgv
	Env      []string // environment for Terraform: see NewMeter
}

// NewMeter writes the wrapper (work/provider/terraform-provider-kubeinfer) and the CLI
// configuration (work/terraform.rc), and creates work/usageDir for the provider's usage files.
// Env is the caller's environment without KUBE_*, TF_* and KUBECONFIG (nothing there may
// redirect the provider or Terraform), plus the CLI configuration and non-interactive settings.
func NewMeter(work, usageDir, timeBin, provider string) (*Meter, error) {
	m := &Meter{TimeBin: timeBin, UsageDir: filepath.Join(work, usageDir), TimeFile: filepath.Join(work, "terraform.time")}
	wrapDir := filepath.Join(work, "provider")
	for _, d := range []string{m.UsageDir, wrapDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	// $$ is the wrapper's PID, then GNU time's (exec), so each provider process gets its own file.
	wrapper := fmt.Sprintf("#!/bin/sh\nexec %s -q -f '%%M %%U %%S' -o %s/provider.$$ %s \"$@\"\n",
		shellQuote(timeBin), shellQuote(m.UsageDir), shellQuote(provider))
	if err := os.WriteFile(filepath.Join(wrapDir, "terraform-provider-kubeinfer"), []byte(wrapper), 0o755); err != nil {
		return nil, err
	}
	rc := fmt.Sprintf("provider_installation {\n  dev_overrides {\n    \"registry.terraform.io/kubeinfer/kubeinfer\" = %q\n  }\n  direct {}\n}\n", wrapDir)
	rcPath := filepath.Join(work, "terraform.rc")
	if err := os.WriteFile(rcPath, []byte(rc), 0o644); err != nil {
		return nil, err
	}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "KUBE_") || strings.HasPrefix(k, "TF_") || k == "KUBECONFIG" {
			continue
		}
		m.Env = append(m.Env, kv)
	}
	m.Env = append(m.Env, "TF_CLI_CONFIG_FILE="+rcPath, "TF_IN_AUTOMATION=1", "TF_INPUT=0", "CHECKPOINT_DISABLE=1")
	return m, nil
}

// Reset removes the usage files of the previous command, so that the next reads only its own.
func (m *Meter) Reset() error {
	if err := clearDir(m.UsageDir); err != nil {
		return err
	}
	_ = os.Remove(m.TimeFile)
	return nil
}

// TimeArgv is the GNU time command to put before terraform's, so that it reports to TimeFile.
func (m *Meter) TimeArgv() []string {
	return []string{m.TimeBin, "-q", "-f", "%M %U %S", "-o", m.TimeFile}
}

// TerraformUsage is what GNU time reported on the terraform process: the peak RSS (KiB), which
// the kernel gives as the largest of the process and the children it waited for, and the user
// + system time, which includes those children's.
func (m *Meter) TerraformUsage() (rssKiB int64, cpu time.Duration, err error) {
	if rssKiB, cpu, err = readGNUTime(m.TimeFile); err != nil {
		return 0, 0, fmt.Errorf("terraform's usage: %w", err)
	}
	return rssKiB, cpu, nil
}

// ProviderUsage reads what GNU time wrote for each provider process: the largest peak RSS, the
// total CPU time and the number of processes. None is an error: Terraform did not run the
// wrapper, so nothing was measured.
func (m *Meter) ProviderUsage() (rssKiB int64, cpu time.Duration, n int, err error) {
	entries, err := os.ReadDir(m.UsageDir)
	if err != nil {
		return 0, 0, 0, err
	}
	for _, e := range entries {
		rss, c, err := readGNUTime(filepath.Join(m.UsageDir, e.Name()))
		if err != nil {
			return 0, 0, 0, err
		}
		rssKiB = max(rssKiB, rss)
		cpu += c
		n++
	}
	if n == 0 {
		return 0, 0, 0, errors.New("no provider usage was recorded: did Terraform run the wrapper from dev_overrides?")
	}
	return rssKiB, cpu, n, nil
}

// readGNUTime reads a file that GNU time wrote with -f '%M %U %S': the peak RSS (KiB) and the
// user + system time.
func readGNUTime(path string) (rssKiB int64, cpu time.Duration, err error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, 0, err
	}
	// The last line holds the format; a line before it may report a signal.
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

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// ExitCode is the exit status of a command that ran (0 for err == nil), or err when it did not
// run at all.
func ExitCode(err error) (int, error) {
	var exitErr *exec.ExitError
	if errors.As(err, &exitErr) {
		return exitErr.ExitCode(), nil
	}
	return 0, err
}

// FirstLine is the first line of a command's output, e.g. of `terraform version`; "" when it
// failed (the version is only reported, not needed).
func FirstLine(out []byte, _ error) string {
	s, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	return s
}

// Tail is the last n bytes of a command's output, for an error message.
func Tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "...\n" + s[len(s)-n:]
}

// LoadAverage is the first three fields of /proc/loadavg ("" where there is none), reported
// before and after a run as a hint of other work on the machine.
func LoadAverage() string {
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

// WorkDir is the absolute path of the scratch folder work, or of a new temporary one (named
// after prefix) when work is "". remove deletes the temporary folder at the end of the run and
// leaves a given one alone, so that its configurations and state can be looked at.
func WorkDir(work, prefix string) (dir string, remove func(), err error) {
	remove = func() {}
	if work == "" {
		if work, err = os.MkdirTemp("", prefix); err != nil {
			return "", nil, err
		}
		tmp := work
		remove = func() { os.RemoveAll(tmp) }
	}
	if dir, err = filepath.Abs(work); err != nil {
		remove()
		return "", nil, err
	}
	return dir, remove, nil
}
