#!/usr/bin/env bash
# fleet.sh: plan and apply time per cluster, and the provider's memory, for fleets of 1, 3 and 10
# clusters (issue #27), with examples/fleet/opentofu (OpenTofu provider for_each: one provider
# process per cluster).
#
# Each cluster is an API server with the CRDs (kubeinfer-testcluster -profile newer-fields), so
# the numbers are the provider's and the CLI's, not a controller's: the LeaderWorkerSets are
# applied with wait_for_rollout = false. The provider runs through a wrapper under GNU time, which
# records each provider process's peak RSS and CPU. For each fleet size: plan (new objects), apply,
# a plan with no change, destroy; wall seconds, per cluster, the provider processes' largest peak
# RSS and their summed CPU. Results go to RESULTS/fleet.md.
#
#   scripts/bench/fleet.sh                 # sizes 1 3 10
#   SIZES="1 3" scripts/bench/fleet.sh
#   make bench-fleet
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
root=$(cd "$here/../.." && pwd -P)
cd "$root"
SIZES=${SIZES:-1 3 10}
results=${BENCH_RESULTS_DIR:-$here/results/fleet}
log() { printf 'fleet.sh: %s\n' "$*" >&2; }
[[ -x /usr/bin/time ]] || { log "GNU time (/usr/bin/time) is required"; exit 1; }

tofu=$(scripts/tool.sh tofu)
assets=${KUBEINFER_TEST_ASSETS:-$(tools/testcluster/ensure.sh)}
export KUBEINFER_TEST_ASSETS=$assets
work=$(mktemp -d "${TMPDIR:-/tmp}/kubeinfer-fleet.XXXXXX")
pids=()
stop_clusters() {
	((${#pids[@]} == 0)) && return 0
	kill "${pids[@]}" 2>/dev/null || true
	wait "${pids[@]}" 2>/dev/null || true
	pids=()
}
trap 'stop_clusters; rm -rf "$work"' EXIT

log "building the provider and the test cluster command"
go build -o "$work/bin/provider" .
go build -o "$work/bin/testcluster" ./internal/acctest/cmd/kubeinfer-testcluster
mkdir -p "$work/providers" "$work/usage"
printf '#!/bin/sh\nexec /usr/bin/time -q -f "%%M %%U %%S" -o %s/usage/provider.$$ %s "$@"\n' "$work" "$work/bin/provider" >"$work/providers/terraform-provider-kubeinfer"
chmod +x "$work/providers/terraform-provider-kubeinfer"
printf 'provider_installation {\n  dev_overrides {\n    "registry.opentofu.org/kubeinfer/kubeinfer" = "%s/providers"\n  }\n  direct {}\n}\n' "$work" >"$work/cli.tfrc"
export TF_CLI_CONFIG_FILE=$work/cli.tfrc TF_IN_AUTOMATION=1 CHECKPOINT_DISABLE=1 KUBECONFIG=

# usage: the provider processes' largest peak RSS (MiB) and summed CPU (s) since the last call.
usage() {
	local files=("$work"/usage/provider.*)
	if [[ ! -e ${files[0]} ]]; then
		echo "0 0 0"
		return
	fi
	awk '{ if ($1 > m) m = $1; c += $2 + $3; n++ } END { printf "%.1f %.2f %d\n", m / 1024, c, n }' "${files[@]}"
	rm -f "${files[@]}"
}

mkdir -p "$results"
out=$results/fleet.md
{
	echo "# Fleet of clusters: examples/fleet/opentofu, $(basename "$tofu"), $(date -u +%Y-%m-%d)"
	echo
	echo "$(nproc) CPUs; load average before: $(cut -d' ' -f1-3 /proc/loadavg). Each cluster: an API server with the CRDs, objects applied with wait_for_rollout = false."
	echo
	echo "| clusters | operation | seconds | seconds per cluster | provider processes | largest provider peak RSS (MiB) | provider CPU (s) |"
	echo "|---:|---|---:|---:|---:|---:|---:|"
} >"$out"

for n in $SIZES; do
	log "starting $n clusters"
	stop_clusters
	# Three at a time: ten API servers starting at once on 2 cores miss their start timeout.
	for ((i = 0; i < n; i++)); do
		"$work/bin/testcluster" -profile newer-fields -kubeconfig "$work/kc-$n-$i" -ready-file "$work/ready-$n-$i" >/dev/null 2>"$work/cluster-$n-$i.log" &
		pids+=($!)
		if (((i + 1) % 3 == 0 || i + 1 == n)); then
			for ((j = i - (i % 3); j <= i; j++)); do
				for _ in $(seq 900); do
					[[ -e $work/ready-$n-$j ]] && break
					sleep 0.2
				done
				[[ -e $work/ready-$n-$j ]] || { log "cluster $j of $n did not start:"; tail -20 "$work/cluster-$n-$j.log" >&2; exit 1; }
			done
		fi
	done
	dir=$work/fleet-$n
	cp -r examples/fleet "$dir"
	{
		echo "clusters = {"
		for ((i = 0; i < n; i++)); do
			printf '  "cluster-%d" = { config_path = "%s" }\n' "$i" "$work/kc-$n-$i"
		done
		echo "}"
		echo "wait_for_rollout = false"
	} >"$dir/opentofu/terraform.tfvars"
	(cd "$dir/opentofu" && "$tofu" get -no-color >/dev/null)
	usage >/dev/null
	for op in plan apply plan-no-change destroy; do
		case $op in
		plan | plan-no-change) args=(plan -no-color -input=false -lock=false) ;;
		apply) args=(apply -auto-approve -no-color -input=false) ;;
		destroy) args=(destroy -auto-approve -no-color -input=false) ;;
		esac
		start=$(date +%s.%N)
		(cd "$dir/opentofu" && "$tofu" "${args[@]}" >"$work/$op-$n.log" 2>&1) || { log "$op with $n clusters failed:"; tail -30 "$work/$op-$n.log" >&2; exit 1; }
		end=$(date +%s.%N)
		read -r rss cpu procs < <(usage)
		awk -v n="$n" -v op="$op" -v s="$start" -v e="$end" -v rss="$rss" -v cpu="$cpu" -v p="$procs" \
			'BEGIN { printf "| %d | %s | %.2f | %.2f | %d | %s | %s |\n", n, op, e - s, (e - s) / n, p, rss, cpu }' >>"$out"
	done
	stop_clusters
done
echo >>"$out"
echo "Growth: compare the seconds per cluster and the provider CPU across the sizes; each provider process holds one cluster's client, so the largest peak RSS stays flat while the number of processes grows with the fleet." >>"$out"
cat "$out"
