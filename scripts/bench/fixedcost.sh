#!/usr/bin/env bash
# fixedcost.sh: the fixed cost of a Terraform command (issue #28), offline, interleaved against a
# baseline build. Needs no cluster: the provider points at a port where nothing listens.
#
# Builds the provider of the working tree and of BASELINE (default 5b2b3f8, the build of
# 2026-12-01) in a temporary git worktree, then runs, RUNS times (default 7), alternating the
# builds each time so that both see the same load:
#   - schema-only: `terraform plan` of a configuration with only the provider block;
#   - one LeaderWorkerSet: `terraform plan` of one new kubeinfer_leaderworkerset (the vLLM
#     example), no cluster reached.
# Each command runs under GNU time, and the provider under GNU time through a dev_overrides
# wrapper: wall time, Terraform's own CPU (its user + system time minus the providers'), the
# providers' CPU and their largest peak RSS. The medians go to RESULTS/fixedcost.md (markdown)
# and the samples to RESULTS/fixedcost.tsv; `terraform providers schema -json` of both builds
# is compared (size, and whether the bytes are identical).
#
#   scripts/bench/fixedcost.sh
#   BASELINE=fb0cbc1 RUNS=11 BENCH_RESULTS_DIR=scripts/bench/results/fixed-cost scripts/bench/fixedcost.sh
#   make bench-fixed-cost
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
root=$(cd "$here/../.." && pwd -P)
cd "$root"

GO=${GO:-go}
TERRAFORM=${TERRAFORM:-terraform}
BASELINE=${BASELINE:-5b2b3f8}
RUNS=${RUNS:-7}
results=${BENCH_RESULTS_DIR:-$here/results/fixed-cost}

log() { printf 'fixedcost.sh: %s\n' "$*" >&2; }
[[ -x /usr/bin/time ]] || { log "GNU time (/usr/bin/time, Debian package 'time') is required"; exit 1; }
command -v "$TERRAFORM" >/dev/null || { log "$TERRAFORM is not on PATH"; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/kubeinfer-fixedcost.XXXXXX")
wt=$work/baseline-src
cleanup() {
	git worktree remove --force "$wt" >/dev/null 2>&1 || true
	rm -rf "$work"
}
trap cleanup EXIT

current="working tree ($(git rev-parse --short HEAD)$(git diff --quiet HEAD -- . 2>/dev/null || echo ', modified'))"
log "building the provider of the $current"
"$GO" build -o "$work/bin/current" .
log "building the provider of $BASELINE"
git worktree add --detach "$wt" "$BASELINE" >/dev/null 2>&1
(cd "$wt" && "$GO" build -o "$work/bin/baseline" .)
builds=(baseline current)

for b in "${builds[@]}"; do
	d=$work/$b
	mkdir -p "$d/provider" "$d/usage"
	printf '#!/bin/sh\nexec /usr/bin/time -q -f "%%M %%U %%S" -o %s/usage/provider.$$ %s "$@"\n' "$d" "$work/bin/$b" >"$d/provider/terraform-provider-kubeinfer"
	chmod +x "$d/provider/terraform-provider-kubeinfer"
	printf 'provider_installation {\n  dev_overrides {\n    "registry.terraform.io/kubeinfer/kubeinfer" = "%s/provider"\n  }\n  direct {}\n}\n' "$d" >"$d/terraform.rc"
done

mkdir -p "$work/cases/schema-only" "$work/cases/one-lws"
cat >"$work/cases/schema-only/main.tf" <<'EOF'
terraform {
  required_providers {
    kubeinfer = { source = "kubeinfer/kubeinfer" }
  }
}

provider "kubeinfer" {
  host     = "https://127.0.0.1:1"
  token    = "unused"
  insecure = true
}
EOF
cp "$work/cases/schema-only/main.tf" "$work/cases/one-lws/main.tf"
cat >>"$work/cases/one-lws/main.tf" <<'EOF'

resource "kubeinfer_leaderworkerset" "vllm" {
  wait_for_rollout = false
  metadata = {
    name      = "vllm"
    namespace = "inference"
  }
  spec = {
    replicas = 2
    leader_worker_template = {
      size           = 4
      restart_policy = "RecreateGroupOnPodRestart"
      leader_template = {
        metadata = { labels = { role = "leader" } }
        spec = {
          containers = [{
            name      = "vllm-leader"
            image     = "vllm/vllm-openai:v0.11.0"
            command   = ["sh", "-c", "python3 -m vllm.entrypoints.openai.api_server --port 8080 --tensor-parallel-size 8"]
            env       = [{ name = "HF_TOKEN", value_from = { secret_key_ref = { name = "hf-token", key = "token" } } }]
            ports     = [{ container_port = 8080 }]
            resources = { limits = { "nvidia.com/gpu" = "8" }, requests = { "nvidia.com/gpu" = "8" } }
            readiness_probe = {
              tcp_socket            = { port = "8080" }
              initial_delay_seconds = 15
            }
            volume_mounts = [{ name = "dshm", mount_path = "/dev/shm" }]
          }]
          volumes = [{ name = "dshm", empty_dir = { medium = "Memory", size_limit = "15Gi" } }]
        }
      }
      worker_template = {
        spec = {
          containers = [{
            name          = "vllm-worker"
            image         = "vllm/vllm-openai:v0.11.0"
            resources     = { limits = { "nvidia.com/gpu" = "8" }, requests = { "nvidia.com/gpu" = "8" } }
            volume_mounts = [{ name = "dshm", mount_path = "/dev/shm" }]
          }]
          volumes = [{ name = "dshm", empty_dir = { medium = "Memory", size_limit = "15Gi" } }]
        }
      }
    }
  }
}
EOF

env_for() {
	printf '%s\n' "TF_CLI_CONFIG_FILE=$work/$1/terraform.rc" TF_IN_AUTOMATION=1 TF_INPUT=0 CHECKPOINT_DISABLE=1
}

# sample BUILD CASE: one timed `terraform plan`; prints the TSV line.
sample() {
	local b=$1 c=$2 d=$work/$1 start end tf_rss tf_u tf_s pcpu=0 prss=0 n=0 rss u s f
	rm -f "$d"/usage/*
	start=$(date +%s.%N)
	(cd "$work/cases/$c" && env $(env_for "$b") /usr/bin/time -q -f '%M %U %S' -o "$d/terraform.time" \
		"$TERRAFORM" plan -lock=false -refresh=false -input=false >"$d/out" 2>&1) ||
		{ log "$b $c: terraform plan failed:"; tail -20 "$d/out" >&2; exit 1; }
	end=$(date +%s.%N)
	read -r tf_rss tf_u tf_s < <(tail -1 "$d/terraform.time")
	for f in "$d"/usage/*; do
		read -r rss u s < <(tail -1 "$f")
		pcpu=$(echo "$pcpu + $u + $s" | bc)
		((rss > prss)) && prss=$rss
		n=$((n + 1))
	done
	printf '%s\t%s\t%.3f\t%.3f\t%.3f\t%.1f\t%d\n' "$b" "$c" "$(echo "$end - $start" | bc)" \
		"$(echo "$tf_u + $tf_s - $pcpu" | bc)" "$pcpu" "$(echo "$prss / 1024" | bc -l)" "$n"
}

load_before=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || true)
mkdir -p "$results"
tsv=$results/fixedcost.tsv
printf 'build\tcase\twall_s\tterraform_cpu_s\tprovider_cpu_s\tprovider_rss_mib\tprovider_processes\n' >"$tsv"
for c in schema-only one-lws; do
	for b in "${builds[@]}"; do sample "$b" "$c" >/dev/null; done # warm the page cache
	for ((r = 1; r <= RUNS; r++)); do
		# Alternate which build goes first.
		if ((r % 2)); then order=(baseline current); else order=(current baseline); fi
		for b in "${order[@]}"; do sample "$b" "$c" >>"$tsv"; done
	done
	log "$c: $RUNS runs per build"
done

for b in "${builds[@]}"; do
	(cd "$work/cases/schema-only" && env $(env_for "$b") "$TERRAFORM" providers schema -json >"$work/$b.schema.json")
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || true)
if cmp -s "$work/baseline.schema.json" "$work/current.schema.json"; then same=identical; else same=different; fi

median() { sort -n | awk '{a[NR]=$1} END {if (NR % 2) print a[(NR+1)/2]; else printf "%.3f\n", (a[NR/2]+a[NR/2+1])/2}'; }
col() { awk -F'\t' -v b="$1" -v c="$2" -v k="$3" '$1==b && $2==c {print $k}' "$tsv" | median; }
{
	echo "# Fixed cost of a Terraform command: $current against $BASELINE"
	echo
	echo "$(date -u +%Y-%m-%d), $(nproc) CPUs, $("$TERRAFORM" version | head -1), $RUNS interleaved runs per build and case, medians;"
	echo "load average before: $load_before, after: $load_after. Offline: the provider points at an unreachable host."
	echo
	echo "| case | build | wall (s) | Terraform CPU (s) | provider CPU (s) | Terraform + provider CPU (s) | provider peak RSS (MiB) | provider processes |"
	echo "|---|---|---:|---:|---:|---:|---:|---:|"
	for c in schema-only one-lws; do
		for b in "${builds[@]}"; do
			name=$b; [[ $b == baseline ]] && name="baseline $BASELINE"; [[ $b == current ]] && name="$current"
			tc=$(col "$b" "$c" 4); pc=$(col "$b" "$c" 5)
			printf '| %s | %s | %s | %s | %s | %.3f | %s | %s |\n' "$c" "$name" "$(col "$b" "$c" 3)" "$tc" "$pc" \
				"$(echo "$tc + $pc" | bc)" "$(col "$b" "$c" 6)" "$(col "$b" "$c" 7)"
		done
	done
	echo
	echo "\`terraform providers schema -json\`: baseline $(wc -c <"$work/baseline.schema.json") bytes, current $(wc -c <"$work/current.schema.json") bytes ($same)."
} >"$results/fixedcost.md"
cat "$results/fixedcost.md"
