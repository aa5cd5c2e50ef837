#!/usr/bin/env bash
# run.sh: the Terraform-level benchmark of `make bench` (issue #7).
#
# Builds the provider, starts a local API server (etcd + kube-apiserver with the
# LeaderWorkerSet CRD of the newer-fields profile and the released DisaggregatedSet
# CRD, internal/acctest/cmd/kubeinfer-testcluster) and runs the driver in this
# folder (scripts/bench/*.go), which times terraform plan / apply / no-change plan /
# destroy and the kubectl floor for N LeaderWorkerSets, DisaggregatedSets and
# PriorityLevelConfigurations, records the provider's and Terraform's peak RSS
# (GNU time), counts the provider's Kubernetes API requests per object in one
# extra, untimed cycle with TF_LOG_PROVIDER=debug, and writes bench.md, bench.tsv,
# requests.tsv, bench.gp and bench.png to the results folder. Takes about 5-8
# minutes on 2 cores.
#
# Arguments are passed to the driver, e.g.
#   scripts/bench/run.sh -runs 5 -lws 1,20,100,200 -plc 20 -ds 20
#   make bench-terraform BENCH_ARGS="-runs 1 -lws 20 -plc 20 -ds 20"
# -ds N (default 20) measures N DisaggregatedSets, each the vLLM prefill/decode pair
# of examples/disaggregated-serving (wait_for_rollout = false: no controller runs),
# and bench.md sets their offline plan beside that of as many LeaderWorkerSets.
# -lws 0, -plc 0 or -ds 0 leaves that kind out; -parallelism N (default 10,
# Terraform's default) is passed to terraform plan, apply and destroy.
#
# Scale case (300 LeaderWorkerSets, parallelism 30; results in results/scale-300/;
# about 18 minutes on 2 cores shared with another test job):
#   BENCH_RESULTS_DIR=scripts/bench/results/scale-300 \
#     make bench-terraform BENCH_ARGS="-runs 1 -lws 300 -plc 0 -parallelism 30"
# or, the same without make:
#   BENCH_RESULTS_DIR=scripts/bench/results/scale-300 scripts/bench/run.sh -runs 1 -lws 300 -plc 0 -parallelism 30
#
# Against an older build, interleaved (issue #28: every N = 20 operation at least as fast as
# 5b2b3f8, N = 1 apply within 4x of kubectl):
#   BENCH_BASELINE=5b2b3f8 BENCH_RESULTS_DIR=scripts/bench/results/fixed-cost scripts/bench/run.sh -lws 1,20 -plc 0 -ds 0
#
# Environment:
#   BENCH_BASELINE     a commit: compare with its provider build (see above); BENCH_ROUNDS rounds
#   BENCH_RESULTS_DIR  results folder (default: scripts/bench/results)
#   BENCH_KEEP_WORK=1  keep the scratch folder (configurations, state, manifests)
#   GO, TERRAFORM, KUBECTL, GNUPLOT  tools (default: from PATH)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
root=$(cd "$here/../.." && pwd -P)
cd "$root"

GO=${GO:-go}
TERRAFORM=${TERRAFORM:-terraform}
KUBECTL=${KUBECTL:-kubectl}
GNUPLOT=${GNUPLOT:-gnuplot}
results=${BENCH_RESULTS_DIR:-$here/results}

log() { printf 'run.sh: %s\n' "$*" >&2; }

# GNU time measures the provider's peak RSS; gnuplot draws bench.png. Both are
# Debian packages: install them when missing and possible.
apt_install() {
	if [[ $(id -u) -ne 0 ]] || ! command -v apt-get >/dev/null 2>&1; then
		return 1
	fi
	log "installing $* with apt-get"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null 2>&1 ||
		{ apt-get update -qq >/dev/null 2>&1 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null 2>&1; }
}
if [[ ! -x /usr/bin/time ]]; then
	apt_install time || { log "GNU time (/usr/bin/time, Debian package 'time') is required"; exit 1; }
fi
if ! command -v "$GNUPLOT" >/dev/null 2>&1; then
	apt_install gnuplot-nox || log "gnuplot is not available: bench.png will be skipped (bench.gp is still written)"
fi
for t in "$TERRAFORM" "$KUBECTL"; do
	command -v "$t" >/dev/null 2>&1 || { log "$t is not on PATH"; exit 1; }
done

work=$(mktemp -d "${TMPDIR:-/tmp}/kubeinfer-bench.XXXXXX")
cluster_pid=
cleanup() {
	if [[ -n $cluster_pid ]] && kill -0 "$cluster_pid" 2>/dev/null; then
		kill -INT "$cluster_pid" 2>/dev/null || true
		wait "$cluster_pid" 2>/dev/null || true
	fi
	if [[ ${BENCH_KEEP_WORK:-} == 1 ]]; then
		log "scratch folder kept: $work"
	else
		rm -rf "$work"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

start=$SECONDS
log "building the provider, the test cluster and the driver"
mkdir -p "$work/bin"
"$GO" build -o "$work/bin/terraform-provider-kubeinfer" .
"$GO" build -o "$work/bin/kubeinfer-testcluster" ./internal/acctest/cmd/kubeinfer-testcluster
"$GO" build -o "$work/bin/bench" ./scripts/bench
assets=$(tools/testcluster/ensure.sh)

log "starting etcd + kube-apiserver"
# The newer-fields profile: the API server without the LWS controller, scheduler and nodes, so
# the figures measure Terraform, the provider and the API server, not hundreds of simulated pods.
# Its CRD folder (internal/acctest/testdata/crds, the LeaderWorkerSet CRD with the newer fields)
# plus the released DisaggregatedSet CRD from the assets folder (lws/crds, as the released
# profile installs it): -crds replaces the profile's folder, and the test cluster waits until
# every CRD in it is established.
mkdir -p "$work/crds"
# The generated folder's DisaggregatedSet CRD (v0.10.0's fields), where it has one, replaces the
# released one.
cp "$assets/lws/crds/disaggregatedset.x-k8s.io_disaggregatedsets.yaml" "$work/crds/"
cp internal/acctest/testdata/crds/*.yaml "$work/crds/"
KUBEINFER_TEST_ASSETS=$assets "$work/bin/kubeinfer-testcluster" -profile newer-fields -crds "$work/crds" \
	-kubeconfig "$work/kubeconfig" -ready-file "$work/ready" >"$work/cluster.log" 2>&1 &
cluster_pid=$!
for _ in $(seq 1 240); do
	[[ -f $work/ready ]] && break
	if ! kill -0 "$cluster_pid" 2>/dev/null; then
		log "the test cluster exited:"; cat "$work/cluster.log" >&2; exit 1
	fi
	sleep 0.5
done
[[ -f $work/ready ]] || { log "the test cluster did not become ready in 120 s:"; cat "$work/cluster.log" >&2; exit 1; }

if [[ -z ${BENCH_BASELINE:-} ]]; then
	"$work/bin/bench" -provider "$work/bin/terraform-provider-kubeinfer" -kubeconfig "$work/kubeconfig" \
		-terraform "$TERRAFORM" -kubectl "$KUBECTL" -gnuplot "$GNUPLOT" \
		-work "$work/run" -out "$results" "$@"
	log "done in $((SECONDS - start)) s; results in $results"
	exit 0
fi

# Against a baseline build (BENCH_BASELINE=<commit>): the driver runs BENCH_ROUNDS times (default
# 3) for each build, one run each, alternating, so that both builds see the same load; the
# medians per case go to $results/vs-<commit>/compare.md, every sample to compare.tsv.
log "building the provider of $BENCH_BASELINE"
git worktree add --detach "$work/baseline-src" "$BENCH_BASELINE" >/dev/null 2>&1
(cd "$work/baseline-src" && "$GO" build -o "$work/bin/baseline" .)
git worktree remove --force "$work/baseline-src" >/dev/null 2>&1 || true
out=$results/vs-$BENCH_BASELINE
mkdir -p "$out"
for round in $(seq 1 "${BENCH_ROUNDS:-3}"); do
	for build in baseline current; do
		bin=$work/bin/terraform-provider-kubeinfer
		[[ $build == baseline ]] && bin=$work/bin/baseline
		log "round $round: $build"
		"$work/bin/bench" -provider "$bin" -kubeconfig "$work/kubeconfig" -terraform "$TERRAFORM" -kubectl "$KUBECTL" \
			-gnuplot /nonexistent -work "$work/run-$build-$round" -out "$work/out-$build-$round" -runs 1 "$@" >/dev/null
		awk -F'\t' -v b="$build" -v r="$round" 'NR > 1 { print b "\t" r "\t" $0 }' "$work/out-$build-$round/bench.tsv"
	done
done >"$out/compare.tsv"
{
	echo "# $(git rev-parse --short HEAD) against $BENCH_BASELINE, ${BENCH_ROUNDS:-3} interleaved rounds, medians"
	echo
	echo "$(date -u +%F), $(nproc) CPUs, $("$TERRAFORM" version | sed -n 1p); load average at the end: $(cut -d' ' -f1-3 /proc/loadavg). Arguments: $*"
	echo
	echo "| kind | N | operation | tool | build | seconds | provider RSS (MiB) | command CPU (s) |"
	echo "|---|---:|---|---|---|---:|---:|---:|"
	sort -t$'\t' -k3,3 -k4,4n -k5,5 -k6,6 -k1,1 "$out/compare.tsv" | awk -F'\t' '
		function median(list,   n, a, i, j, t) { n = split(list, a, " "); for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
			return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
		{ key = $3 "|" $4 "|" $5 "|" $6 "|" ($6 == "kubectl" ? "-" : $1); if (!(key in s)) order[++k] = key
			s[key] = s[key] " " $8; rss[key] = rss[key] " " ($9 == "" ? 0 : $9); cpu[key] = cpu[key] " " $12 }
		END { for (i = 1; i <= k; i++) { x = order[i]; split(x, f, "|")
			printf "| %s | %s | %s | %s | %s | %.3f | %s | %.3f |\n", f[1], f[2], f[3], f[4], f[5], median(s[x]), (f[4] == "kubectl" ? "" : sprintf("%.1f", median(rss[x]))), median(cpu[x]) } }'
} >"$out/compare.md"
cat "$out/compare.md"
log "done in $((SECONDS - start)) s; results in $out"
