#!/usr/bin/env bash
# tool.sh NAME: print the path of a cached build of a pinned development tool,
# building it first if this version has not been built on this machine.
#
#   NAME           module folder   binary built
#   tfplugindocs   tools/docs      github.com/hashicorp/terraform-plugin-docs/cmd/tfplugindocs
#   goreleaser     tools/release   github.com/goreleaser/goreleaser/v2
#   golangci-lint  tools/lint      github.com/golangci/golangci-lint/v2/cmd/golangci-lint
#   tofu           tools/tofu      github.com/opentofu/opentofu/cmd/tofu
#   actionlint     tools/actionlint github.com/rhysd/actionlint/cmd/actionlint
#   controller-gen tools/crdgen     sigs.k8s.io/controller-tools/cmd/controller-gen
#   opa            tools/opa        github.com/open-policy-agent/opa (policies on plan JSON, examples/policy)
#   tflint         tools/tflint     github.com/terraform-linters/tflint (runs the tflint-ruleset-kubeinfer plugin)
#   terraform      tools/terraform  github.com/hashicorp/terraform (by tools/terraform/build.sh):
#                                   Terraform 1.14, run by the terraform-1.14 phase (and docs.sh)
#   terraform-latest tools/terraform-latest  the same, the newest release, run by the
#                                   terraform-latest phases
#   terraform-oldest tools/terraform-oldest  the same, the oldest release the docs claim
#
# The version is the one required by the module folder's go.mod, so bumping a
# tool is a go.mod change; binaries are cached as
# ${KUBEINFER_CACHE_DIR:-$HOME/.cache/kubeinfer}/bin/NAME-VERSION, outside the
# repository, so fresh clones on the same machine reuse them. Only the path is
# printed on stdout; progress goes to stderr. Safe to run concurrently.
#
# tool.sh --cached NAME prints the path only when that version is built already, and
# nothing otherwise (it never builds).
set -euo pipefail

cached_only=
if [[ ${1:-} == --cached ]]; then
	cached_only=1
	shift
fi
name=${1:?usage: tool.sh [--cached] tfplugindocs|goreleaser|golangci-lint|tofu|actionlint|controller-gen|terraform|terraform-latest|terraform-oldest}
case $name in
tfplugindocs) moddir=docs mod=github.com/hashicorp/terraform-plugin-docs pkg=github.com/hashicorp/terraform-plugin-docs/cmd/tfplugindocs ;;
goreleaser) moddir=release mod=github.com/goreleaser/goreleaser/v2 pkg=github.com/goreleaser/goreleaser/v2 ;;
golangci-lint) moddir=lint mod=github.com/golangci/golangci-lint/v2 pkg=github.com/golangci/golangci-lint/v2/cmd/golangci-lint ;;
tofu) moddir=tofu mod=github.com/opentofu/opentofu pkg=github.com/opentofu/opentofu/cmd/tofu ldflags="-X github.com/opentofu/opentofu/version.dev=no" ;;
actionlint) moddir=actionlint mod=github.com/rhysd/actionlint pkg=github.com/rhysd/actionlint/cmd/actionlint ;;
controller-gen) moddir=crdgen mod=sigs.k8s.io/controller-tools pkg=sigs.k8s.io/controller-tools/cmd/controller-gen ;;
opa) moddir=opa mod=github.com/open-policy-agent/opa pkg=github.com/open-policy-agent/opa ;;
tflint) moddir=tflint mod=github.com/terraform-linters/tflint pkg=github.com/terraform-linters/tflint ;;
terraform) moddir=terraform mod=github.com/hashicorp/terraform pkg=github.com/hashicorp/terraform builder=terraform ;;
terraform-latest) moddir=terraform-latest mod=github.com/hashicorp/terraform pkg=github.com/hashicorp/terraform builder=terraform ;;
terraform-oldest) moddir=terraform-oldest mod=github.com/hashicorp/terraform pkg=github.com/hashicorp/terraform builder=terraform ;;
*)
	echo "tool.sh: unknown tool $name" >&2
	exit 2
	;;
esac

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
gomod=$root/tools/$moddir/go.mod
version=$(awk -v m="$mod" '($1 == "require" && $2 == m) { print $3; exit } ($1 == m && $2 ~ /^v/) { print $2; exit }' "$gomod")
[[ -n $version ]] || {
	echo "tool.sh: cannot find the version of $mod in $gomod" >&2
	exit 1
}

cache_root=${KUBEINFER_CACHE_DIR:-${HOME:?HOME is not set}/.cache/kubeinfer}
[[ $cache_root == /* ]] || cache_root=$PWD/$cache_root
bindir=$cache_root/bin
out=$bindir/$name-$version

if [[ -x $out ]]; then
	printf '%s\n' "$out"
	exit 0
fi
[[ -z $cached_only ]] || exit 0

command -v go >/dev/null 2>&1 || {
	echo "tool.sh: the go command is required to build $name" >&2
	exit 1
}
mkdir -p "$bindir"
if command -v flock >/dev/null 2>&1; then
	exec 9>"$bindir/.$name.lock"
	flock 9
fi
if [[ ! -x $out ]]; then
	tmp=$out.tmp.$$
	trap 'rm -f -- "$tmp"' EXIT
	start=$SECONDS
	echo "tool.sh: building $name $version ($pkg) into $out; first build only, this can take a few minutes" >&2
	if [[ -n ${builder:-} ]]; then
		# A tool that cannot be built as a dependency of its module (see its build.sh).
		"$root/tools/$builder/build.sh" "$version" "$tmp"
	else
		# GOWORK=off: never pick up a go.work from a parent directory.
		# ldflags: no symbol table or DWARF (a shorter link; nobody debugs these), and the
		# release's version stamp (a build from source says "-dev" otherwise).
		(cd "$root/tools/$moddir" && GOWORK=off GOFLAGS=-buildvcs=false go build -trimpath -ldflags "-s -w ${ldflags:-}" -o "$tmp" "$pkg")
	fi
	mv -f -- "$tmp" "$out"
	echo "tool.sh: built $name $version in $((SECONDS - start)) s" >&2
fi
printf '%s\n' "$out"
