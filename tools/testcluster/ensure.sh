#!/usr/bin/env bash
# ensure.sh: make sure the etcd and kube-apiserver binaries used by the
# acceptance tests (internal/acctest) and `make cluster` exist, building them
# from the Go module proxy if needed, and print the absolute path of the folder
# holding them. Nothing else is printed on stdout; progress goes to stderr.
#
# Idempotent and safe to run concurrently (builds are serialised with flock
# when available, and each binary is built to a temporary name and renamed, so
# an interrupted build never leaves a broken binary behind).
#
# Environment:
#   KUBEINFER_CACHE_DIR  cache root (default: $HOME/.cache/kubeinfer)
#
# Versions are pinned by the go.mod/go.sum files next to this script:
#   kube-apiserver/  k8s.io/kubernetes v1.37.2 (staging modules replaced by v0.37.2)
#   etcd/            go.etcd.io/etcd/server/v3 v3.6.16
set -euo pipefail

KUBE_VERSION=v1.37.2
ETCD_VERSION=v3.6.16

cache_root=${KUBEINFER_CACHE_DIR:-${HOME:?HOME is not set}/.cache/kubeinfer}
[[ $cache_root == /* ]] || cache_root=$PWD/$cache_root
dir=$cache_root/testcluster/kube-apiserver-${KUBE_VERSION}_etcd-${ETCD_VERSION}

# Fast path: nothing to do (no subprocesses).
if [[ -x $dir/etcd && -x $dir/kube-apiserver ]]; then
	printf '%s\n' "$dir"
	exit 0
fi

log() { printf 'ensure.sh: %s\n' "$*" >&2; }

case ${BASH_SOURCE[0]} in
*/*) here=${BASH_SOURCE[0]%/*} ;;
*) here=. ;;
esac
here=$(cd "$here" && pwd -P)

command -v go >/dev/null 2>&1 || {
	log "the go command is required to build etcd and kube-apiserver"
	exit 1
}

mkdir -p "$dir"
dir=$(cd "$dir" && pwd -P)

# Serialise concurrent builds (e.g. several test packages starting at once).
if command -v flock >/dev/null 2>&1; then
	exec 9>"$dir/.lock"
	if ! flock -n 9; then
		log "another build is running; waiting for the lock on $dir/.lock"
		flock 9
	fi
fi

tmpfiles=()
cleanup() {
	local f
	for f in "${tmpfiles[@]}"; do
		rm -f -- "$f"
	done
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# build NAME MODULE_DIR PACKAGE [extra go build flags...]
build() {
	local name=$1 moddir=$2 pkg=$3
	shift 3
	local out=$dir/$name
	if [[ -x $out ]]; then
		return 0
	fi
	local tmp=$dir/.$name.tmp.$$
	tmpfiles+=("$tmp")
	local start=$SECONDS errlog=$dir/.$name.build.$$.log
	tmpfiles+=("$errlog")
	log "building $name ($pkg) into $out; this can take several minutes on a cold build cache"
	# GOWORK=off: never pick up a go.work from a parent directory.
	# The committed go.sum is used as is (-mod=readonly); only if it turns
	# out to be incomplete do we retry with -mod=mod.
	# (pipefail is set, so the pipeline fails when go build fails.)
	if ! (cd "$here/$moddir" && GOWORK=off go build -o "$tmp" "$@" "$pkg" 2>&1) | tee "$errlog" >&2; then
		if grep -q -e 'go.sum' -e 'updates to go.mod needed' "$errlog"; then
			log "go.sum in $here/$moddir is incomplete; retrying with -mod=mod"
			(cd "$here/$moddir" && GOWORK=off go build -mod=mod -o "$tmp" "$@" "$pkg")
		else
			log "building $name failed"
			return 1
		fi
	fi
	"$tmp" --version >/dev/null 2>&1 || "$tmp" --help >/dev/null 2>&1 || {
		log "the freshly built $name does not run"
		return 1
	}
	chmod 0755 "$tmp"
	mv -f -- "$tmp" "$out"
	log "built $name in $((SECONDS - start)) s"
}

build etcd etcd go.etcd.io/etcd/server/v3
kube_minor=${KUBE_VERSION#v1.}
kube_minor=${kube_minor%%.*}
build kube-apiserver kube-apiserver k8s.io/kubernetes/cmd/kube-apiserver \
	-ldflags "-X k8s.io/component-base/version.gitVersion=${KUBE_VERSION} -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=${kube_minor} -X k8s.io/component-base/version.gitTreeState=clean"

printf '%s\n' "$dir"
