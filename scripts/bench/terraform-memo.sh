#!/usr/bin/env bash
# terraform-memo.sh: builds the Terraform CLI (default v1.11.4, the version on PATH here) from
# the Go module proxy with one change: configschema's Block.ImpliedType and Object.ImpliedType
# are memoized (scripts/bench/tfmemo). Profiles of `terraform plan` show that Terraform
# recomputes the implied type of every nested attribute of every resource instance it checks
# (plans/objchange.AssertPlanValid), which for a schema of ~2,300 nested attributes is most of
# Terraform's per-instance CPU. The patched binary shows what an upstream fix would give:
#
#   TERRAFORM=$(scripts/bench/terraform-memo.sh) BENCH_RESULTS_DIR=scripts/bench/results/terraform-memo \
#     scripts/bench/run.sh
#
# Prints the binary's path; cached under ${KUBEINFER_CACHE_DIR:-~/.cache/kubeinfer}/bin.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
root=$(cd "$here/../.." && pwd -P)
version=${TERRAFORM_VERSION:-v1.11.4}
cache=${KUBEINFER_CACHE_DIR:-$HOME/.cache/kubeinfer}/bin
bin=$cache/terraform-memo-$version
if [[ -x $bin ]]; then
	echo "$bin"
	exit 0
fi
mkdir -p "$cache"
work=$(mktemp -d "${TMPDIR:-/tmp}/terraform-memo.XXXXXX")
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT
dir=$(cd "$work" && GOFLAGS=-mod=mod go mod download -json "github.com/hashicorp/terraform@$version" | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p')
cp -r "$dir" "$work/src"
chmod -R u+w "$work/src"
(cd "$root" && go run ./scripts/bench/tfmemo -src "$work/src")
(cd "$work/src" && GOFLAGS=-mod=mod GOTOOLCHAIN=local go build -o "$bin.tmp" .) >&2
mv "$bin.tmp" "$bin"
echo "$bin"
