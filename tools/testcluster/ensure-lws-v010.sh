#!/usr/bin/env bash
# ensure-lws-v010.sh: make an assets folder like ensure.sh's, with the LeaderWorkerSet v0.10.0
# controller-manager, CRDs and webhook configurations in place of v0.9.0's, and print its path.
#
# The Go module proxy does not serve sigs.k8s.io/lws v0.10.0 as a module, so the controller is
# built from a git clone of kubernetes-sigs/lws at the release commit (2161f38, "updating docs for
# 0.10 release"): `git archive` of the folders the build needs, then `go build ./cmd/`. Nothing of
# it is committed here; the clone is read at run time.
#
# Usage:
#   KUBEINFER_LWS_GIT=/path/to/lws/clone tools/testcluster/ensure-lws-v010.sh
# then run the gated tests with
#   KUBEINFER_LWS_V010=1 KUBEINFER_TEST_ASSETS=<printed folder> TF_ACC=1 go test ./internal/disaggregatedset/
#
# The Kubernetes components, etcd and KWOK are those of ensure.sh (linked, not rebuilt).
set -euo pipefail

LWS_COMMIT=2161f38
LWS_VERSION=v0.10.0

case ${BASH_SOURCE[0]} in
*/*) here=${BASH_SOURCE[0]%/*} ;;
*) here=. ;;
esac
here=$(cd "$here" && pwd -P)
log() { printf 'ensure-lws-v010.sh: %s\n' "$*" >&2; }

git_dir=${KUBEINFER_LWS_GIT:?set KUBEINFER_LWS_GIT to a git clone of https://github.com/kubernetes-sigs/lws}
git -C "$git_dir" cat-file -e "$LWS_COMMIT^{commit}" 2>/dev/null || {
	log "$git_dir has no commit $LWS_COMMIT; fetch the v0.10.0 release into it"
	exit 1
}

base=$("$here/ensure.sh")
dir=${base%_lws-*}_lws-$LWS_VERSION
if [[ -f $dir/.complete ]]; then
	printf '%s\n' "$dir"
	exit 0
fi
bin_dir=${base%/*}/bin
out=$bin_dir/lws-controller-manager-$LWS_VERSION

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
git -C "$git_dir" archive "$LWS_COMMIT" go.mod go.sum api pkg cmd config client-go | tar -x -C "$work"
if [[ ! -x $out ]]; then
	log "building lws-controller-manager $LWS_VERSION from $LWS_COMMIT; this takes a few minutes"
	(cd "$work" && GOWORK=off go build -o "$out.tmp" -ldflags "-s -w -X sigs.k8s.io/lws/pkg/version.GitVersion=$LWS_VERSION" ./cmd/)
	mv -f "$out.tmp" "$out"
fi

mkdir -p "$dir"
for f in etcd kube-apiserver kube-controller-manager kube-scheduler kwok; do
	ln -sfn "$(readlink -f "$base/$f")" "$dir/$f"
done
ln -sfn "$out" "$dir/lws-controller-manager"
rm -rf "$dir/lws" "$dir/kwok-stages"
cp -r "$base/kwok-stages" "$dir/kwok-stages"
mkdir -p "$dir/lws/crds" "$dir/lws/webhook"
cp "$work"/config/crd/bases/*.yaml "$dir/lws/crds/"
cp "$work/config/webhook/manifests.yaml" "$dir/lws/webhook/"
: >"$dir/.complete"
printf '%s\n' "$dir"
