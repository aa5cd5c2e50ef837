#!/usr/bin/env bash
# tflint-checksums.sh DIST: write DIST/checksums.txt, the file `tflint --init` reads from a
# GitHub release to install tflint-ruleset-kubeinfer (SHA-256 of each
# tflint-ruleset-kubeinfer_<os>_<arch>.zip, then the file name). goreleaser has one checksum
# file per release, which is the Terraform Registry's SHA256SUMS (provider zips only), so the
# release workflow runs this after goreleaser and uploads the file; release-check.sh runs it on
# the snapshot.
set -euo pipefail
dist=${1:?usage: tflint-checksums.sh DIST}
cd "$dist"
shopt -s nullglob
zips=(tflint-ruleset-kubeinfer_*_*.zip)
((${#zips[@]} > 0)) || {
	echo "tflint-checksums.sh: no tflint-ruleset-kubeinfer zips in $dist" >&2
	exit 1
}
sha256sum "${zips[@]}" >checksums.txt
echo "tflint-checksums.sh: $dist/checksums.txt lists ${#zips[@]} plugin zips"
