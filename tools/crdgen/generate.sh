#!/usr/bin/env bash
# Regenerates the LeaderWorkerSet deepcopy functions and the test CRD from the
# Go types in internal/apis/leaderworkerset/v1.
#
# controller-gen is built from this directory's own module (pinned in
# tools/crdgen/go.mod) into bin/controller-gen, so its dependencies never mix
# with the provider's. Run from anywhere; it works relative to the repo root.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
controller_gen="$root/bin/controller-gen"

if [ ! -x "$controller_gen" ]; then
  echo "building $controller_gen" >&2
  (cd "$here" && go build -o "$controller_gen" sigs.k8s.io/controller-tools/cmd/controller-gen)
fi

cd "$root"

# DeepCopy, DeepCopyInto and DeepCopyObject.
"$controller_gen" object paths=./internal/apis/leaderworkerset/v1/...

# The CRD, with embedded ObjectMeta kept for the pod templates (name,
# namespace, labels, annotations, finalizers) exactly as upstream LWS does.
"$controller_gen" crd:generateEmbeddedObjectMeta=true \
  paths=./internal/apis/leaderworkerset/v1/... \
  output:crd:artifacts:config=internal/acctest/testdata/crds

gofmt -w internal/apis/leaderworkerset/v1/zz_generated.deepcopy.go
