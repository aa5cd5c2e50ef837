#!/usr/bin/env bash
# run.sh: the slope benchmark (results in scripts/bench/results/slope/).
#
# 1. BenchmarkPlanCreateScale (the provider alone, in process: ValidateResourceConfig and
#    PlanResourceChange of one LeaderWorkerSet with N = 10..10,000 more containers, env entries,
#    volumes or tolerations in its worker template) -> go-bench.txt, go-bench.md.
# 2. The Terraform CLI on the same kind of configuration (scripts/bench/slope/*.go):
#    `terraform validate` and an offline `terraform plan` (the provider points at
#    https://127.0.0.1:1; nothing contacts a cluster), Terraform's and the provider's CPU apart
#    -> cli.tsv, cli.md, cli-runs.log (every run).
#
# Arguments are passed to the driver (step 2), e.g.
#   scripts/bench/slope/run.sh -dims containers,env,volumes -n 100,500,1000,2000 -runs 1
# Environment:
#   SLOPE_RESULTS_DIR  results folder (default: scripts/bench/results/slope)
#   SLOPE_SKIP_GO=1    skip step 1
#   SLOPE_GO_COUNT     -count of step 1 (default 5)
#   GO, TERRAFORM      tools (default: from PATH)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
root=$(cd "$here/../../.." && pwd -P)
cd "$root"
GO=${GO:-go}
TERRAFORM=${TERRAFORM:-terraform}
results=${SLOPE_RESULTS_DIR:-$root/scripts/bench/results/slope}
mkdir -p "$results"
log() { printf 'slope/run.sh: %s\n' "$*" >&2; }
[[ -x /usr/bin/time ]] || { log "GNU time (/usr/bin/time, Debian package 'time') is required"; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/kubeinfer-slope.XXXXXX")
trap 'rm -rf "$work"' EXIT

log "load average: $(cat /proc/loadavg)"
if [[ ${SLOPE_SKIP_GO:-} != 1 ]]; then
	log "go test -bench PlanCreateScale -benchtime 3x -count ${SLOPE_GO_COUNT:-5}"
	"$GO" test -run '^$' -bench 'PlanCreateScale' -benchtime 3x -count "${SLOPE_GO_COUNT:-5}" \
		./internal/leaderworkerset/ | tee "$results/go-bench.txt"
	"$GO" run ./scripts/bench/slope -gobench "$results/go-bench.txt" >"$results/go-bench.md"
	log "load average: $(cat /proc/loadavg)"
fi

log "building the provider and the driver"
"$GO" build -o "$work/terraform-provider-kubeinfer" .
"$GO" build -o "$work/slope" ./scripts/bench/slope
"$work/slope" -provider "$work/terraform-provider-kubeinfer" -terraform "$TERRAFORM" \
	-work "$work/run" -out "$results" "$@" 2>&1 | tee "$results/cli-runs.log"
log "load average: $(cat /proc/loadavg)"
