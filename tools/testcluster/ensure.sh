#!/usr/bin/env bash
# ensure.sh: make sure every component of the test cluster exists, building it
# from the Go module proxy if needed, and print the absolute path of the
# folder ("assets folder") that holds them. Nothing else is printed on stdout;
# progress goes to stderr. Used by internal/acctest, `make cluster` and
# `make demo`.
#
# The assets folder holds:
#   etcd, kube-apiserver, kube-controller-manager, kube-scheduler
#   kwok                      simulated nodes and pod life cycles
#   lws-controller-manager    the released LeaderWorkerSet controller and webhooks
#   lws/crds/*.yaml           the released LWS CRDs (config/crd/bases of the release)
#   lws/webhook/manifests.yaml the released webhook configurations (config/webhook)
#   kwok-stages/*.yaml        KWOK's own stages (kustomize/stage of the release)
#
# Each binary is cached once per version under $cache/testcluster/bin, so a
# version bump of one component rebuilds only that component. Idempotent and
# safe to run concurrently (builds are serialised with flock when available;
# each binary is built to a temporary name and renamed, so an interrupted build
# never leaves a broken binary behind).
#
# Environment:
#   KUBEINFER_CACHE_DIR  cache root (default: $HOME/.cache/kubeinfer)
#
# Versions are pinned by the go.mod/go.sum files next to this script:
#   kubernetes/  k8s.io/kubernetes v1.37.2 (staging modules replaced by v0.37.2)
#   etcd/        go.etcd.io/etcd/server/v3 v3.6.16
#   kwok/        sigs.k8s.io/kwok v0.8.0
#   lws/         sigs.k8s.io/lws v0.9.0
set -euo pipefail

KUBE_VERSION=v1.37.2
ETCD_VERSION=v3.6.16
KWOK_VERSION=v0.8.0
LWS_VERSION=v0.9.0

cache_root=${KUBEINFER_CACHE_DIR:-${HOME:?HOME is not set}/.cache/kubeinfer}
[[ $cache_root == /* ]] || cache_root=$PWD/$cache_root
bin_dir=$cache_root/testcluster/bin
dir=$cache_root/testcluster/kubernetes-${KUBE_VERSION}_etcd-${ETCD_VERSION}_kwok-${KWOK_VERSION}_lws-${LWS_VERSION}

# Fast path: nothing to do (no subprocesses).
if [[ -f $dir/.complete ]]; then
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
	log "the go command is required to build the test cluster's components"
	exit 1
}

mkdir -p "$dir" "$bin_dir"
dir=$(cd "$dir" && pwd -P)
bin_dir=$(cd "$bin_dir" && pwd -P)

# Serialise concurrent builds (e.g. several test packages starting at once).
if command -v flock >/dev/null 2>&1; then
	exec 9>"$bin_dir/.lock"
	if ! flock -n 9; then
		log "another build is running; waiting for the lock on $bin_dir/.lock"
		flock 9
	fi
fi

tmpfiles=()
cleanup() {
	local f
	for f in "${tmpfiles[@]}"; do
		rm -rf -- "$f"
	done
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# build NAME VERSION MODULE_DIR PACKAGE [extra go build flags...]
# builds $bin_dir/NAME-VERSION and links $dir/NAME to it.
build() {
	local name=$1 version=$2 moddir=$3 pkg=$4
	shift 4
	local out=$bin_dir/$name-$version
	if [[ ! -x $out ]]; then
		local tmp=$bin_dir/.$name.tmp.$$
		tmpfiles+=("$tmp")
		local start=$SECONDS errlog=$bin_dir/.$name.build.$$.log
		tmpfiles+=("$errlog")
		log "building $name $version ($pkg); this can take several minutes on a cold build cache"
		# GOWORK=off: never pick up a go.work from a parent directory.
		# The committed go.sum is used as is (-mod=readonly); only if it turns
		# out to be incomplete do we retry with -mod=mod.
		if ! (cd "$here/$moddir" && GOWORK=off go build -o "$tmp" "$@" "$pkg" 2>&1) | tee "$errlog" >&2; then
			if grep -q -e 'go.sum' -e 'updates to go.mod needed' "$errlog"; then
				log "go.sum in $here/$moddir is incomplete; retrying with -mod=mod"
				(cd "$here/$moddir" && GOWORK=off go build -mod=mod -o "$tmp" "$@" "$pkg")
			else
				log "building $name failed"
				return 1
			fi
		fi
		chmod 0755 "$tmp"
		mv -f -- "$tmp" "$out"
		log "built $name in $((SECONDS - start)) s"
	fi
	ln -sfn "$out" "$dir/$name"
}

# module_dir MODULE_DIR MODULE: the folder of MODULE's source in the module
# cache (downloaded by the build above).
module_dir() {
	(cd "$here/$1" && GOWORK=off go list -mod=mod -m -f '{{.Dir}}' "$2")
}

build etcd "$ETCD_VERSION" etcd go.etcd.io/etcd/server/v3 -ldflags "-s -w"
kube_minor=${KUBE_VERSION#v1.}
kube_minor=${kube_minor%%.*}
# -s -w: no symbol table or DWARF. The test binaries are never debugged, and linking three
# 100+ MB binaries without them is markedly faster on a cold build.
kube_ldflags="-s -w -X k8s.io/component-base/version.gitVersion=${KUBE_VERSION} -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=${kube_minor} -X k8s.io/component-base/version.gitTreeState=clean"
for cmd in kube-apiserver kube-controller-manager kube-scheduler; do
	build "$cmd" "$KUBE_VERSION" kubernetes "k8s.io/kubernetes/cmd/$cmd" -ldflags "$kube_ldflags"
done
build kwok "$KWOK_VERSION" kwok sigs.k8s.io/kwok/cmd/kwok -ldflags "-s -w"
build lws-controller-manager "$LWS_VERSION" lws sigs.k8s.io/lws/cmd \
	-ldflags "-s -w -X sigs.k8s.io/lws/pkg/version.GitVersion=${LWS_VERSION}"

# The releases' own manifests, copied as they are.
lws_src=$(module_dir lws sigs.k8s.io/lws)
kwok_src=$(module_dir kwok sigs.k8s.io/kwok)
data=$bin_dir/.data.$$
tmpfiles+=("$data")
mkdir -p "$data/lws/crds" "$data/lws/webhook" "$data/kwok/stages"
cp "$lws_src"/config/crd/bases/*.yaml "$data/lws/crds/"
cp "$lws_src/config/webhook/manifests.yaml" "$data/lws/webhook/"
cp "$kwok_src/kustomize/stage/node/fast/node-initialize.yaml" \
	"$kwok_src/kustomize/stage/node/heartbeat-with-lease/node-heartbeat-with-lease.yaml" \
	"$kwok_src"/kustomize/stage/pod/fast/pod-*.yaml "$data/kwok/stages/"
chmod -R u+w "$data"
rm -rf "$dir/lws" "$dir/kwok-stages"
mv "$data/lws" "$dir/lws"
mv "$data/kwok/stages" "$dir/kwok-stages"
: >"$dir/.complete"

printf '%s\n' "$dir"
