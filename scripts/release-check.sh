#!/usr/bin/env bash
# release-check.sh (part of make test): check .goreleaser.yml and run a real
# snapshot release for linux_amd64 only, then verify what the Terraform
# Registry needs from a release:
#
#   terraform-provider-kubeinfer_<version>_linux_amd64.zip
#       holding terraform-provider-kubeinfer_v<version>, a static binary built
#       with -trimpath and -X main.version=<version>;
#   terraform-provider-kubeinfer_<version>_SHA256SUMS
#       listing the zip and terraform-provider-kubeinfer_<version>_manifest.json,
#       with matching sums;
#   the manifest: {"version":1,"metadata":{"protocol_versions":["6.0"]}}.
#
# The snapshot is built from a generated copy of .goreleaser.yml whose only
# differences are the target list (linux/amd64) and the dist folder (a
# temporary folder, so dist/ of `make release-snapshot` is left alone).
# Signing and publishing are skipped (internal/installtest signs SHA256SUMS with a throwaway
# key). goreleaser is built from tools/release; then internal/installtest installs the snapshot
# from a filesystem and a network mirror with terraform init and tofu init.
#
# Environment: RELEASE_CHECK_KEEP=1 keeps the temporary folder and prints it.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
cd "$root"
goreleaser=$("$root/scripts/tool.sh" goreleaser)
project=terraform-provider-kubeinfer

fail() {
	echo "release-check: FAIL: $*" >&2
	exit 1
}

work=$(mktemp -d "${TMPDIR:-/tmp}/kubeinfer-release.XXXXXX")
if [[ ${RELEASE_CHECK_KEEP:-0} == 1 ]]; then
	trap 'echo "release-check: kept $work" >&2' EXIT
else
	trap 'rm -rf -- "$work"' EXIT
fi

echo "release-check: goreleaser check"
"$goreleaser" check

python3 - "$root/.goreleaser.yml" "$work/goreleaser.yml" "$work/dist" <<'EOF'
import sys, yaml
src, dst, dist = sys.argv[1:4]
with open(src) as f:
    cfg = yaml.safe_load(f)
cfg["dist"] = dist
for b in cfg.get("builds", []):
    b["goos"], b["goarch"] = ["linux"], ["amd64"]
    b.pop("ignore", None)
    b.pop("targets", None)
with open(dst, "w") as f:
    yaml.safe_dump(cfg, f, sort_keys=False)
EOF

# Signing as the release workflow signs: goreleaser's signs stage (gpg --detach-sign of the
# SHA256SUMS with --local-user $GPG_FINGERPRINT) with a throwaway RSA key in a temporary
# GNUPGHOME (the Terraform Registry takes RSA and DSA keys). The maintainers' key is the one
# real releases use; this checks the configuration and the files it writes.
skip=publish
if command -v gpg >/dev/null; then
	export GNUPGHOME=$work/gnupg
	mkdir -m 700 "$GNUPGHOME"
	gpg --batch --quiet --passphrase '' --quick-gen-key "kubeinfer release-check <release-check@kubeinfer.invalid>" rsa3072 sign never 2>/dev/null ||
		fail "generating a throwaway GPG key"
	GPG_FINGERPRINT=$(gpg --batch --with-colons --list-secret-keys | awk -F: '$1 == "fpr" { print $10; exit }')
	export GPG_FINGERPRINT
	[[ -n $GPG_FINGERPRINT ]] || fail "no fingerprint for the throwaway GPG key"
else
	# Without gpg the signing stage cannot run here: say so, and check the rest.
	echo "release-check: gpg not found: the signing of SHA256SUMS is NOT checked"
	skip=sign,publish
fi

echo "release-check: goreleaser release --snapshot (linux_amd64 only; skipping $skip)"
"$goreleaser" release --snapshot --clean --skip="$skip" --config "$work/goreleaser.yml"

dist=$work/dist
version=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["version"])' "$dist/metadata.json")
[[ -n $version ]] || fail "no version in $dist/metadata.json"
echo "release-check: snapshot version $version"

zip=${project}_${version}_linux_amd64.zip
sums=${project}_${version}_SHA256SUMS
manifest=${project}_${version}_manifest.json
binary=${project}_v${version}

[[ -f $dist/$zip ]] || fail "missing $zip in dist (have: $(cd "$dist" && ls))"
[[ -f $dist/$sums ]] || fail "missing $sums in dist"

# SHA256SUMS lists exactly the zip and the manifest, with correct sums.
listed=$(awk '{print $2}' "$dist/$sums" | sort | tr '\n' ' ')
expected=$(printf '%s\n' "$zip" "$manifest" | sort | tr '\n' ' ')
[[ $listed == "$expected" ]] || fail "$sums lists [$listed], expected [$expected]"
(cd "$dist" && grep -F "  $zip" "$sums" | sha256sum -c --quiet -) || fail "checksum mismatch for $zip"
manifest_sum=$(sha256sum terraform-registry-manifest.json | awk '{print $1}')
grep -qx "$manifest_sum  $manifest" "$dist/$sums" || fail "$sums does not hold the sum of terraform-registry-manifest.json as $manifest"

# The manifest content.
python3 - terraform-registry-manifest.json <<'EOF' || fail "terraform-registry-manifest.json is not {\"version\":1,\"metadata\":{\"protocol_versions\":[\"6.0\"]}}"
import json, sys
m = json.load(open(sys.argv[1]))
assert m == {"version": 1, "metadata": {"protocol_versions": ["6.0"]}}, m
EOF

# The zip holds exactly the binary, built as the registry expects.
entries=$(unzip -Z1 "$dist/$zip" | tr '\n' ' ')
[[ $entries == "$binary " ]] || fail "$zip holds [$entries], expected [$binary]"
unzip -q -o "$dist/$zip" -d "$work/unzipped"
info=$(go version -m "$work/unzipped/$binary") || fail "$binary is not a Go binary"
grep -q 'GOOS=linux' <<<"$info" || fail "$binary: GOOS is not linux"
grep -q 'GOARCH=amd64' <<<"$info" || fail "$binary: GOARCH is not amd64"
grep -q 'CGO_ENABLED=0' <<<"$info" || fail "$binary: not built with CGO_ENABLED=0"
grep -q -- '-trimpath=true' <<<"$info" || fail "$binary: not built with -trimpath"
# -trimpath keeps -ldflags out of the build info: look for the string itself.
grep -qaF -- "$version" "$work/unzipped/$binary" || fail "$binary: version $version not set (-X main.version)"

# The signature the registry verifies: a detached binary signature of SHA256SUMS, as
# ${sums}.sig, by the key whose fingerprint the release was given.
if [[ $skip != *sign* ]]; then
	[[ -f $dist/$sums.sig ]] || fail "missing $sums.sig in dist (have: $(cd "$dist" && ls))"
	gpg --batch --status-fd 1 --verify "$dist/$sums.sig" "$dist/$sums" 2>/dev/null | grep -q "^\[GNUPG:\] VALIDSIG $GPG_FINGERPRINT " ||
		fail "$sums.sig is not a valid signature of $sums by $GPG_FINGERPRINT"
	echo "release-check: $sums.sig verifies with the signing key"
fi

echo "release-check: artifacts:"
(cd "$dist" && ls -l "$zip" "$sums" && sed 's/^/    /' "$sums")

# The TFLint plugin's zip and the checksums.txt that `tflint --init` reads (written by
# scripts/tflint-checksums.sh, which the release workflow runs after goreleaser).
plugin_zip=tflint-ruleset-kubeinfer_linux_amd64.zip
[[ -f $dist/$plugin_zip ]] || fail "missing $plugin_zip in dist"
[[ $(unzip -Z1 "$dist/$plugin_zip") == tflint-ruleset-kubeinfer ]] || fail "$plugin_zip does not hold exactly tflint-ruleset-kubeinfer"
"$root/scripts/tflint-checksums.sh" "$dist"
(cd "$dist" && sha256sum -c --quiet checksums.txt) || fail "checksums.txt does not match the plugin zips"
# The workflow signs checksums.txt with the same key, for TFLint's signing_key.
if [[ $skip != *sign* ]]; then
	gpg --batch --quiet --local-user "$GPG_FINGERPRINT" --detach-sign "$dist/checksums.txt" || fail "signing checksums.txt"
	gpg --batch --status-fd 1 --verify "$dist/checksums.txt.sig" "$dist/checksums.txt" 2>/dev/null | grep -q "^\[GNUPG:\] VALIDSIG $GPG_FINGERPRINT " ||
		fail "checksums.txt.sig does not verify"
	echo "release-check: checksums.txt.sig verifies with the signing key"
fi

# Installed as users install it: from a filesystem mirror and a network mirror of the snapshot,
# with terraform init and tofu init (no dev_overrides), the lock file's hashes checked against
# the artifacts, and the inference example planned with the installed provider.
echo "release-check: install from mirrors (internal/installtest)"
tofu=$("$root/scripts/tool.sh" tofu)
KUBEINFER_RELEASE_DIST=$dist KUBEINFER_TOFU=$tofu TF_ACC_TERRAFORM_PATH=$(command -v "${TERRAFORM:-terraform}") \
	go test -count=1 -v -run '^TestInstallFromMirrors$' ./internal/installtest/ || fail "installing from the mirrors"
echo "release-check: OK"
