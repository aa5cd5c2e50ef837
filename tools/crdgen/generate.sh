#!/usr/bin/env bash
# Regenerates the LeaderWorkerSet deepcopy functions and the test CRD from the
# Go types in internal/apis/leaderworkerset/v1.
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

# The CRD, with embedded ObjectMeta kept for the pod templates (name,
# namespace, labels, annotations, finalizers) exactly as upstream LWS does.
"$controller_gen" crd:generateEmbeddedObjectMeta=true \
  paths=./internal/apis/leaderworkerset/v1/... \
  output:crd:artifacts:config=internal/acctest/testdata/crds

gofmt -w internal/apis/leaderworkerset/v1/zz_generated.deepcopy.go
