#!/usr/bin/env bash
# Regenerates the deepcopy functions and the test CRDs from the Go types in
# internal/apis/leaderworkerset/v1 and internal/apis/disaggregatedset/v1.
#
# controller-gen is built from this directory's own module (pinned in
# tools/crdgen/go.mod) by scripts/tool.sh and cached by version, so its
# dependencies never mix with the provider's. Run from anywhere; it works on
# the tree it is in (make generate), or on ROOT when given (the generate check
# of make test runs it on a copy).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=${1:-$(cd "$here/../.." && pwd)}
controller_gen=$("$here/../../scripts/tool.sh" controller-gen)

cd "$root"

# DeepCopy, DeepCopyInto and DeepCopyObject.
"$controller_gen" object paths=./internal/apis/leaderworkerset/v1/...
"$controller_gen" object paths=./internal/apis/disaggregatedset/v1/...

# The CRD, with embedded ObjectMeta kept for the pod templates (name,
# namespace, labels, annotations, finalizers) exactly as upstream LWS does.
"$controller_gen" crd:generateEmbeddedObjectMeta=true \
  paths=./internal/apis/leaderworkerset/v1/... \
  output:crd:artifacts:config=internal/acctest/testdata/crds

# The DisaggregatedSet CRD, on its own: a role embeds the released
# LeaderWorkerSet template (sigs.k8s.io/lws v0.9.0), whose package declares a
# LeaderWorkerSet of the same group as ours, and one run would see two.
"$controller_gen" crd:generateEmbeddedObjectMeta=true \
  paths=./internal/apis/disaggregatedset/v1/... \
  output:crd:artifacts:config=internal/acctest/testdata/crds

# A role's replicas get v0.10.0's bounds, which controller-gen cannot read from the embedded
# v0.9.0 template (tools/crdgen/rolebounds).
(cd "$here" && GOWORK=off GOFLAGS= go run ./rolebounds "$root/internal/acctest/testdata/crds/disaggregatedset.x-k8s.io_disaggregatedsets.yaml")

gofmt -w internal/apis/leaderworkerset/v1/zz_generated.deepcopy.go \
  internal/apis/disaggregatedset/v1/zz_generated.deepcopy.go
