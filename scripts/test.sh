#!/usr/bin/env bash
# test.sh [PHASE...]: the project's test pipeline, phase by phase, with the
# time of each. `make test` (and .ci/run) runs every phase; other make targets
# run one or two. With no argument, all phases run in this order:
#
#   terraform      the Terraform CLI is on PATH (fails clearly otherwise)
#   tools          starts building, side by side in the background, every tool a later phase
#                  needs that is not cached yet (the CLIs, golangci-lint, TFLint, OPA, goreleaser,
#                  tfplugindocs, actionlint; scripts/tool.sh), each once: the phase that needs a
#                  tool waits for its build (tool.sh's lock). On a cold machine one build
#                  leaves a core idle while it links or waits on downloads; side by side the
#                  two cores stay busy. Nothing to do when every tool is cached
#   assets         the test cluster's components built and cached
#                  (tools/testcluster/ensure.sh: etcd, kube-apiserver,
#                  kube-controller-manager, kube-scheduler, KWOK, the released
#                  LeaderWorkerSet v0.9.0 controller-manager)
#   faults         the fault suite (internal/faulttest): the Terraform CLI
#                  against the test cluster while kube-apiserver is killed,
#                  APF throttles, a proxy resets connections, SIGINT arrives,
#                  the CRD or the object goes away. It mostly waits (restarts,
#                  rollouts, timeouts), so when other phases follow it runs in
#                  the background beside them; its output comes after theirs
#   hygiene        gofmt, `go mod tidy -diff`, actionlint of .github/workflows,
#                  and generated code (deepcopy, test CRD) as `make generate` writes it
#   lint           golangci-lint (.golangci.yml), 0 issues (tools/lint)
#   terraform-latest  the newest Terraform release built and cached
#                  (tools/terraform-latest), and validate of every example under it
#                  (the import-by-identity examples need 1.12)
#   terraform-1.14 Terraform 1.14 built and cached (tools/terraform)
#   terraform-oldest  the oldest Terraform the docs claim built (tools/terraform-oldest)
#   tofu           OpenTofu built and cached (tools/tofu)
#   go             unit + acceptance tests, TF_ACC=1, on real test clusters
#                  (go test -p 2: at most two packages run a cluster at once), under
#                  every CLI in turn in the same test process, so that a package
#                  starts its clusters once for all of them (acctest.EnvCLIs): the
#                  Terraform on PATH (every test), the newest Terraform (every
#                  acceptance test; resource identity, terraform query, actions and
#                  what 1.16 brought run here), OpenTofu, a run under Terraform 1.14
#                  of the tests of what it brought (identity, query, the restart
#                  action), and a smoke run under the oldest Terraform (create, plan,
#                  import and destroy of each kind). The summary adds each CLI's
#                  time, summed over the packages
#   docs           docs/ matches what tfplugindocs generates now
#   examples       terraform fmt -check and terraform validate of every example folder
#   release        goreleaser check + linux_amd64 snapshot with artifact checks
#   tofu-examples  tofu validate of every example folder
#
# Other phases: unit (unit tests only, no cluster), acc (acceptance tests
# only, the Terraform on PATH), terraform-latest-acc and tofu-acc (acceptance
# tests only, under that CLI alone).
#
# Every phase runs even if an earlier one failed (except that the phases
# needing a tool are skipped when building the tool failed); the summary at
# the end lists each phase's result and time, and the exit status is non-zero
# if any failed.
#
# Environment:
#   TEST_TIMEOUT   go test -timeout (default 40m)
#   TEST_P         go test -p (default 2)
#   TEST_PARALLEL  go test -parallel in the go phase (default 3): the acceptance tests spend much
#                  of their time waiting on controllers, so a third test per package keeps the two
#                  cores busier than GOMAXPROCS (2) would
#   KUBEINFER_TEST_TIMES_OUT  a file to keep every acceptance test's time in (go phase)
#   TESTARGS       extra go test arguments, e.g. '-run TestAccFlowSchema -v'
#   TERRAFORM      Terraform CLI (default terraform)
#   KUBEINFER_PROVIDER_DIR  a folder with a terraform-provider-kubeinfer built from this tree, for
#                  the phases that run the binary (default: built once into a temporary folder)
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
cd "$root" || exit 1

TEST_TIMEOUT=${TEST_TIMEOUT:-40m}
TEST_P=${TEST_P:-2}
TEST_PARALLEL=${TEST_PARALLEL:-3}
TESTARGS=${TESTARGS:-}
TERRAFORM=${TERRAFORM:-terraform}
export CHECKPOINT_DISABLE=1
# A TF_CLI_CONFIG_FILE that names a missing file makes the CLIs print a warning ahead of
# `version -json`, which terraform-exec then cannot parse (OpenTofu 1.12 fails every
# acceptance test on it): treat it as unset. The tests write their own CLI configurations.
if [[ -n ${TF_CLI_CONFIG_FILE:-} && ! -e $TF_CLI_CONFIG_FILE ]]; then
	unset TF_CLI_CONFIG_FILE
fi

all_phases=(terraform tools assets faults hygiene lint terraform-latest terraform-1.14 terraform-oldest tofu go docs examples release tofu-examples)
phases=("$@")
((${#phases[@]} > 0)) || phases=("${all_phases[@]}")

# shellcheck disable=SC2206 # TESTARGS is split on purpose.
testargs=($TESTARGS)

tofu_bin=
terraform_latest_bin=
terraform_114_bin=
terraform_oldest_bin=

# The packages of the go phases: all but the fault suite, which has a phase
# of its own.
# The packages that run longest come first, longest first (go test starts them in this order),
# so that the two slots of -p 2 stay busy to the end instead of one long package running alone last.
longest_first=(leaderworkerset prioritylevelconfiguration disaggregatedset)
packages() {
	local all p
	all=$(go list ./... | grep -v '/internal/faulttest$')
	for p in "${longest_first[@]}"; do
		grep -E "/internal/$p\$" <<<"$all"
	done
	grep -vE "/internal/($(
		IFS='|'
		echo "${longest_first[*]}"
	))\$" <<<"$all"
}

# generated_check: the deepcopy functions and the test CRD are what controller-gen
# writes from the Go types now (tools/crdgen/generate.sh, run on a copy).
generated_check() {
	local work rc=0
	work=$(mktemp -d "${TMPDIR:-/tmp}/kubeinfer-generate.XXXXXX")
	git ls-files -z | tar --null -T - -cf - | tar -C "$work" -xf -
	if ! tools/crdgen/generate.sh "$work" >"$work.log" 2>&1; then
		cat "$work.log" >&2
		rc=1
	else
		for f in internal/apis/leaderworkerset/v1/zz_generated.deepcopy.go internal/apis/disaggregatedset/v1/zz_generated.deepcopy.go internal/acctest/testdata/crds; do
			diff -ruN "$f" "$work/$f" || rc=1
		done
		((rc == 0)) || echo "generated code is stale: run 'make generate' and commit the result" >&2
	fi
	rm -rf -- "$work" "$work.log"
	return $rc
}

# provider_dir: a folder holding terraform-provider-kubeinfer built from this tree once for the
# phases that run the real binary (the fault suite's dev_overrides, validate-examples.sh), which
# take it from KUBEINFER_PROVIDER_DIR instead of linking their own (about 5 s of CPU each).
# A failed build leaves it unset: each phase then builds its own and reports the error.
own_provider_dir=
provider_dir() {
	[[ -z ${KUBEINFER_PROVIDER_DIR:-} ]] || return 0
	own_provider_dir=$(mktemp -d "${TMPDIR:-/tmp}/kubeinfer-provider.XXXXXX") || return 1
	go build -o "$own_provider_dir/terraform-provider-kubeinfer" . || return 1
	export KUBEINFER_PROVIDER_DIR=$own_provider_dir
}

phase_terraform() {
	if ! command -v "$TERRAFORM" >/dev/null 2>&1; then
		echo "The Terraform CLI ($TERRAFORM) is not on PATH." >&2
		echo "Install Terraform >= 1.8 (https://developer.hashicorp.com/terraform/install), or set TERRAFORM=/path/to/terraform." >&2
		return 1
	fi
	"$TERRAFORM" version | sed -n 1p # sed reads everything: head could end the CLI with SIGPIPE, failing the phase under pipefail
}

# The tools the phases after `tools` build with scripts/tool.sh, longest build first.
prebuilt_tools=(terraform-latest tofu terraform-oldest terraform goreleaser golangci-lint tflint opa tfplugindocs actionlint)
tools_log=

phase_tools() {
	local t missing=()
	for t in "${prebuilt_tools[@]}"; do
		[[ -n $(scripts/tool.sh --cached "$t") ]] || missing+=("$t")
	done
	if ((${#missing[@]} == 0)); then
		echo "every tool is cached"
		return 0
	fi
	tools_log=$(mktemp "${TMPDIR:-/tmp}/kubeinfer-tools.XXXXXX")
	echo "building side by side in the background: ${missing[*]} (their log: the summary's end)"
	for t in "${missing[@]}"; do
		scripts/tool.sh "$t" >/dev/null 2>>"$tools_log" &
	done
}

phase_hygiene() {
	local rc=0 unformatted actionlint
	unformatted=$(gofmt -l $(git ls-files '*.go'))
	if [[ -n $unformatted ]]; then
		echo "not gofmt-ed (run 'make fmt'):" >&2
		echo "$unformatted" >&2
		rc=1
	fi
	go mod tidy -diff || {
		echo "go.mod/go.sum are not tidy: run 'go mod tidy'" >&2
		rc=1
	}
	generated_check || rc=1
	if actionlint=$(scripts/tool.sh actionlint); then
		"$actionlint" -shellcheck= -pyflakes= .github/workflows/*.yml || rc=1
	else
		rc=1
	fi
	return $rc
}

phase_lint() {
	local lint
	lint=$(scripts/tool.sh golangci-lint) || return 1
	"$lint" run ./...
}

phase_assets() {
	KUBEINFER_TEST_ASSETS=$(tools/testcluster/ensure.sh) || return 1
	export KUBEINFER_TEST_ASSETS
	echo "test cluster components: $KUBEINFER_TEST_ASSETS"
}

ensure_assets() {
	[[ -n ${KUBEINFER_TEST_ASSETS:-} ]] || phase_assets
}

terraform_path() {
	TF_ACC_TERRAFORM_PATH=$(command -v "$TERRAFORM") || {
		echo "the Terraform CLI ($TERRAFORM) is not on PATH" >&2
		return 1
	}
	export TF_ACC_TERRAFORM_PATH
}

phase_unit() {
	env -u TF_ACC go test -p "$TEST_P" -count=1 -timeout 10m "${testargs[@]}" ./...
}

# The smoke run under the oldest Terraform: one create, plan, import and destroy of each kind.
oldest_smoke='^(TestAccLeaderWorkerSet_minimalVLLM|TestAccPriorityLevelConfiguration_lifecycle|TestAccFlowSchema_lifecycle|TestAccDisaggregatedSet_lifecycle)$'

# The run under Terraform 1.14: the tests of what it brought (resource identity, terraform query
# and its generated configuration, the restart action), which the newest Terraform runs as well.
terraform_114_run='^(TestAcc(LeaderWorkerSet|DisaggregatedSet|PriorityLevelConfiguration)_identity|TestAccLeaderWorkerSet_(query|querySkipsControlled|restartAction|restartActionInvoke))$'

phase_go() {
	local clis times rc
	ensure_assets || return 1
	terraform_path || return 1
	# The TFLint plugin's integration test (internal/tflintrules) runs the pinned TFLint.
	KUBEINFER_TFLINT=$(scripts/tool.sh tflint) || return 1
	# OPA on plan JSON (internal/examplestest TestAccExample_policy).
	KUBEINFER_OPA=$(scripts/tool.sh opa) || return 1
	export KUBEINFER_TFLINT KUBEINFER_OPA
	# The CLIs built by the phases before this one; a CLI whose build failed is left out
	# (its phase has failed already).
	# A run whose pattern selects no test of a package (the smoke pattern, in most packages) is
	# left out by acctest, so that go test does not report the package "[no tests to run]".
	clis="terraform=$TF_ACC_TERRAFORM_PATH"
	[[ -n $terraform_oldest_bin ]] && clis+=" terraform=$terraform_oldest_bin=$oldest_smoke"
	[[ -n $terraform_114_bin ]] && clis+=" terraform=$terraform_114_bin=$terraform_114_run"
	[[ -n $terraform_latest_bin ]] && clis+=" terraform=$terraform_latest_bin"
	[[ -n $tofu_bin ]] && clis+=" tofu=$tofu_bin"
	times=$(mktemp "${TMPDIR:-/tmp}/kubeinfer-cli-times.XXXXXX")
	# -count=1: acceptance results depend on the CLI and cluster, which the
	# test cache does not track.
	TF_ACC=1 KUBEINFER_TEST_CLIS=$clis KUBEINFER_TEST_CLI_TIMES=$times \
		go test -p "$TEST_P" -parallel "$TEST_PARALLEL" -count=1 -timeout "$TEST_TIMEOUT" "${testargs[@]}" $(packages)
	rc=$?
	cli_times "$times"
	slowest_tests "$times.tests"
	if [[ -s $times.reports ]]; then
		echo "results the tests reported (differential and parity counts):"
		sed 's/^/    /' "$times.reports" | tee -a "${cli_summary:-/dev/null}"
	fi
	# KUBEINFER_TEST_TIMES_OUT=<file>: keep every test's time (package, CLI, test, seconds, CPU
	# seconds), to see where a run's time went beyond the slowest few, and in <file>.packages each
	# package's run under each CLI (package, CLI, seconds, result, CPU seconds of the CLI's
	# commands, of the test process and of the cluster).
	[[ -n ${KUBEINFER_TEST_TIMES_OUT:-} && -f $times.tests ]] && cp -- "$times.tests" "$KUBEINFER_TEST_TIMES_OUT"
	[[ -n ${KUBEINFER_TEST_TIMES_OUT:-} && -f $times ]] && cp -- "$times" "$KUBEINFER_TEST_TIMES_OUT.packages"
	rm -f -- "$times" "$times.tests" "$times.reports"
	return $rc
}

# slowest_tests FILE: the acceptance tests that took longest (package, CLI, test, seconds, from
# acctest), where the go phase's time goes.
slowest_tests() {
	[[ -s $1 ]] || return 0
	echo "the slowest acceptance tests (package, CLI, seconds, CPU seconds):"
	sort -t$'\t' -k4,4 -rn "$1" | awk -F'\t' 'NR <= 15 { n = split($2, p, "/"); printf "    %-62s %-18s %-24s %6.1f %6.1f\n", $3, $1, p[n], $4, $5 }' |
		tee -a "${cli_summary:-/dev/null}"
	# A warm run is CPU-bound on 2 cores: the tests that cost it most are those that use most CPU
	# (their CLI commands, the test process and the package's cluster over the test's span).
	echo "the acceptance tests that used the most CPU (package, CLI, seconds, CPU seconds):"
	sort -t$'\t' -k5,5 -rn "$1" | awk -F'\t' 'NR <= 15 { n = split($2, p, "/"); printf "    %-62s %-18s %-24s %6.1f %6.1f\n", $3, $1, p[n], $4, $5 }' |
		tee -a "${cli_summary:-/dev/null}"
}

# cli_times FILE: each CLI's share of the go phase, from the lines the test processes wrote
# (package, CLI, seconds, result, CPU seconds of the CLI's commands, of the test process and of
# the cluster): the seconds summed over the packages, which run $TEST_P at a time. The first
# CLI's share includes the unit tests and the clusters' start.
cli_times() {
	[[ -s $1 ]] || return 0
	echo "time under each CLI, summed over the packages (go test -p $TEST_P), and where its CPU went:"
	awk -F'\t' '{ n = split($2, p, "/"); cli = p[n]; if (!(cli in s)) order[++k] = cli; s[cli] += $3; c[cli]++; if ($4 != "ok") f[cli]++
			cc[cli] += $5; ct[cli] += $6; ck[cli] += $7 }
		END { for (i = 1; i <= k; i++) { x = order[i]
			printf "    %-28s %6.0f s in %d packages%s; CPU s: CLI commands %.0f, test processes %.0f, clusters %.0f\n", x, s[x], c[x], (f[x] ? ", " f[x] " FAILED" : ""), cc[x], ct[x], ck[x] } }' "$1" |
		tee -a "${cli_summary:-/dev/null}"
}

phase_faults() {
	ensure_assets || return 1
	terraform_path || return 1
	TF_ACC=1 go test -count=1 -timeout 30m -v -run '^TestAcc' "${testargs[@]}" ./internal/faulttest/
}

phase_acc() {
	ensure_assets || return 1
	terraform_path || return 1
	TF_ACC=1 go test -p "$TEST_P" -count=1 -timeout "$TEST_TIMEOUT" -run '^TestAcc' "${testargs[@]}" $(packages)
}

phase_docs() {
	scripts/docs.sh check
}

phase_examples() {
	local rc=0
	"$TERRAFORM" fmt -check -recursive -diff examples/ || {
		echo "examples/ is not formatted: run 'make fmt'" >&2
		rc=1
	}
	scripts/validate-examples.sh "$TERRAFORM" || rc=1
	return $rc
}

phase_release() {
	scripts/release-check.sh
}

# The parity and harness tests never run a CLI (they compare validation with dry-run
# requests, or check the cluster): the go phase runs them once.
cli_only_skip='[Pp]arity|^TestAccHarness'

phase_terraform-latest() {
	terraform_latest_bin=$(scripts/tool.sh terraform-latest) || return 1
	"$terraform_latest_bin" version | sed -n 1p
	# The import-by-identity examples validate from 1.12 on.
	scripts/validate-examples.sh "$terraform_latest_bin"
}

phase_terraform-latest-acc() {
	[[ -n ${terraform_latest_bin:-} ]] || phase_terraform-latest || return 1
	ensure_assets || return 1
	acc_under terraform "$terraform_latest_bin"
}

# acc_under KIND CLI: the acceptance tests under that one CLI (acctest.EnvCLIs sets what
# terraform-plugin-testing needs for it, such as OpenTofu's registry host).
acc_under() {
	TF_ACC=1 KUBEINFER_TEST_CLIS="$1=$2" \
		go test -p "$TEST_P" -count=1 -timeout "$TEST_TIMEOUT" -run '^TestAcc' -skip "$cli_only_skip" "${testargs[@]}" $(packages)
}

# Terraform 1.14; the go phase runs the tests of what it brought under it.
phase_terraform-1.14() {
	terraform_114_bin=$(scripts/tool.sh terraform) || return 1
	"$terraform_114_bin" version | sed -n 1p
}

# The oldest Terraform the README claims; the go phase runs the smoke run under it.
phase_terraform-oldest() {
	terraform_oldest_bin=$(scripts/tool.sh terraform-oldest) || return 1
	"$terraform_oldest_bin" version | sed -n 1p
}

phase_tofu() {
	tofu_bin=$(scripts/tool.sh tofu) || return 1
	"$tofu_bin" version | sed -n 1p
}

ensure_tofu() {
	[[ -n $tofu_bin ]] || phase_tofu
}

phase_tofu-acc() {
	ensure_tofu || return 1
	ensure_assets || return 1
	acc_under tofu "$tofu_bin"
}

phase_tofu-examples() {
	ensure_tofu || return 1
	scripts/validate-examples.sh "$tofu_bin"
}

# Phases that mostly wait rather than compute: when other phases follow, they run in the
# background beside those (2 cores are then used while they wait).
background_phases=" faults "

results=()
failed=0
total_start=$SECONDS
cli_summary=$(mktemp "${TMPDIR:-/tmp}/kubeinfer-cli-summary.XXXXXX")
# The machine's CPU counters (/proc/stat's first line) at the start: the summary says how busy
# the cores were over the run and how much time the hypervisor took (steal), since machines of
# one kind differ by about two to one (CONTRIBUTING.md, "How long it takes").
cpu_start=$(head -1 /proc/stat 2>/dev/null) || cpu_start=

# machine_line: cores, and the share of their time that was busy and stolen since cpu_start.
machine_line() {
	[[ -n $cpu_start ]] || return 0
	local now
	now=$(head -1 /proc/stat 2>/dev/null) || return 0
	awk -v a="$cpu_start" -v b="$now" -v cores="$(nproc 2>/dev/null || echo '?')" 'BEGIN {
		n = split(a, x); split(b, y); total = 0
		for (i = 2; i <= n && i <= 9; i++) { d[i] = y[i] - x[i]; total += d[i] }
		if (total <= 0) exit
		idle = d[5] + d[6]
		printf "    machine: %s cores, busy %.0f%% of the run (user %.0f%%, system %.0f%%), steal %.1f%%\n",
			cores, 100 * (total - idle) / total, 100 * (d[2] + d[3]) / total, 100 * d[4] / total, 100 * d[9] / total
	}'
}

# record PHASE RC TOOK [NOTE]: the phase's line of the summary.
record() {
	local status=ok
	if (($2 != 0)); then
		status=FAILED
		failed=1
	fi
	printf '==> %s: %s in %d s%s\n' "$1" "$status" "$3" "${4:+ ($4)}"
	results+=("$(printf '%-21s %-7s %5d s%s' "$1" "$status" "$3" "${4:+  $4}")")
}

bg_phases=() bg_pids=() bg_logs=() bg_starts=()
case " ${phases[*]} " in
*" faults "* | *" examples "* | *" terraform-latest "* | *" tofu-examples "*) provider_dir ;;
esac
for i in "${!phases[@]}"; do
	p=${phases[i]}
	if ! declare -F "phase_$p" >/dev/null; then
		echo "test.sh: unknown phase $p (phases: ${all_phases[*]} unit acc)" >&2
		exit 2
	fi
	printf '\n==> [%s] %s\n' "$(date +%H:%M:%S)" "$p"
	if [[ $background_phases == *" $p "* ]] && ((i + 1 < ${#phases[@]})); then
		log=$(mktemp "${TMPDIR:-/tmp}/kubeinfer-test-$p.XXXXXX")
		# The subshell writes its own time: the wait for it comes only after the last phase.
		(
			bg_start=$SECONDS
			"phase_$p"
			rc=$?
			echo $((SECONDS - bg_start)) >"$log.took"
			exit $rc
		) >"$log" 2>&1 &
		bg_phases+=("$p") bg_pids+=($!) bg_logs+=("$log") bg_starts+=("$SECONDS")
		printf '==> %s: started in the background; its output follows the last phase\n' "$p"
		continue
	fi
	start=$SECONDS
	"phase_$p"
	rc=$?
	record "$p" $rc $((SECONDS - start))
	# Nothing can run without the Terraform CLI.
	if [[ $p == terraform && $rc != 0 ]]; then
		break
	fi
done

for i in "${!bg_phases[@]}"; do
	p=${bg_phases[i]}
	printf '\n==> [%s] %s (waiting for the background run)\n' "$(date +%H:%M:%S)" "$p"
	wait "${bg_pids[i]}"
	rc=$?
	cat "${bg_logs[i]}"
	took=$(cat "${bg_logs[i]}.took" 2>/dev/null) || took=$((SECONDS - bg_starts[i]))
	rm -f -- "${bg_logs[i]}" "${bg_logs[i]}.took"
	record "$p" $rc "$took" "in the background"
done

if [[ -n $tools_log ]]; then
	wait # the tool builds the phases did not wait for (a phase skipped or failed first)
	printf '\n==> tools built in the background\n'
	grep -E '^tool.sh: (built|building)' "$tools_log" | sed 's/^/    /'
	rm -f -- "$tools_log"
fi

printf '\n==> summary\n'
printf '    %s\n' "${results[@]}"
if [[ -s $cli_summary ]]; then
	echo "    go phase, time under each CLI (summed over the packages):"
	sed 's/^/    /' "$cli_summary"
fi
rm -f -- "$cli_summary"
machine_line
[[ -z $own_provider_dir ]] || rm -rf -- "$own_provider_dir"
printf '    %-21s %-7s %5d s\n' total "$( ((failed)) && echo FAILED || echo ok)" $((SECONDS - total_start))
exit $failed
