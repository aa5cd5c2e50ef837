#!/usr/bin/env bash
# validate-examples.sh [CLI]: run `CLI validate` in every folder under
# examples/ that holds .tf files (CLI: terraform by default, or a tofu binary).
#
# No registry is contacted: the provider is built from this tree and found
# through a dev_overrides CLI configuration, so `init` is not run. Each folder
# is validated in a temporary copy; folders that do not declare
# required_providers (the per-resource snippets that tfplugindocs embeds in
# docs/) get a small file declaring source = "kubeinfer/kubeinfer".
#
# The import examples (import-by-string-id.tf, import-by-identity.tf) import to
# the same address, so each is validated on its own, with the folder's other
# files; import by identity needs Terraform or OpenTofu 1.12 and is skipped
# under older CLIs. The action examples (examples/actions/) need Terraform 1.14
# or later and are skipped under OpenTofu, which has no actions.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
cli=${1:-${TERRAFORM:-terraform}}
command -v "$cli" >/dev/null 2>&1 || {
	echo "validate-examples: $cli not found" >&2
	exit 1
}

# OpenTofu resolves "kubeinfer/kubeinfer" on its own registry host.
host=registry.terraform.io
# (No `| head | grep -q`: under pipefail, a reader that stops early can fail the pipeline.)
identity=yes
version_line=$("$cli" version 2>/dev/null | sed -n 1p)
case $version_line in
*OpenTofu*) host=registry.opentofu.org ;;
esac
# Import by identity: Terraform 1.12 and later, OpenTofu 1.12 and later.
case ${version_line#* } in
v1.[0-9][!0-9]* | v1.1[01][!0-9]*) identity=no ;;
esac
# Action blocks (examples/actions/): Terraform 1.14 and later; OpenTofu has no actions.
actions=yes
case $version_line in
*OpenTofu*) actions=no ;;
*) case ${version_line#* } in
	v1.[0-9][!0-9]* | v1.1[0-3][!0-9]*) actions=no ;;
	esac ;;
esac

work=$(mktemp -d "${TMPDIR:-/tmp}/kubeinfer-validate.XXXXXX")
trap 'rm -rf -- "$work"' EXIT

mkdir -p "$work/providers"
# scripts/test.sh builds the provider once for every phase (KUBEINFER_PROVIDER_DIR).
if [[ -x ${KUBEINFER_PROVIDER_DIR:-}/terraform-provider-kubeinfer ]]; then
	ln -s "$KUBEINFER_PROVIDER_DIR/terraform-provider-kubeinfer" "$work/providers/terraform-provider-kubeinfer"
else
	(cd "$root" && go build -o "$work/providers/terraform-provider-kubeinfer" .)
fi
cat >"$work/cli.tfrc" <<EOF
provider_installation {
  dev_overrides {
    "$host/kubeinfer/kubeinfer" = "$work/providers"
  }
  direct {}
}
EOF
export TF_CLI_CONFIG_FILE=$work/cli.tfrc CHECKPOINT_DISABLE=1 TF_IN_AUTOMATION=1

mapfile -t dirs < <(cd "$root" && find examples -name '*.tf' -not -path '*/.terraform/*' -exec dirname {} \; | sort -u)
if ((${#dirs[@]} == 0)); then
	echo "validate-examples: no examples found" >&2
	exit 1
fi

# validate_copy DIR [IMPORT_FILE]: validate a copy of DIR's files (subfolders are
# validated on their own), without its import examples but IMPORT_FILE.
failed=()
checked=0
i=0
validate_copy() {
	local d=$1 extra=${2:-} name=$1 out
	[[ -z $extra ]] || name="$d/$extra"
	i=$((i + 1))
	checked=$((checked + 1))
	copy=$work/ex$i
	mkdir -p "$copy"
	find "$root/$d" -maxdepth 1 -type f \( -name '*.tf' -o -name '*.tfvars' -o -name '*.tftpl' \) -not -name 'import-by-*.tf' -exec cp {} "$copy/" \;
	[[ -z $extra ]] || cp "$root/$d/$extra" "$copy/"
	if ! grep -qs required_providers "$copy"/*.tf; then
		cat >"$copy/zz_required_providers.tf" <<'EOF'
terraform {
  required_providers {
    kubeinfer = {
      source = "kubeinfer/kubeinfer"
    }
  }
}
EOF
	fi
	local at=$copy
	if grep -qs 'source *= *"\.\./' "$root/$d"/*.tf; then
		# A configuration calling a module beside it (examples/fleet): the parent folder is
		# copied whole and the modules installed (`get` installs modules, not providers).
		rm -rf "$copy" && mkdir -p "$copy" && cp -r "$root/$(dirname "$d")" "$copy/tree"
		at=$copy/tree/$(basename "$d")
		if ! out=$(cd "$at" && "$cli" get -no-color 2>&1); then
			echo "FAILED $name (get)"
			printf '%s\n' "$out" | sed 's/^/    /'
			failed+=("$name")
			return
		fi
	fi
	if out=$(cd "$at" && "$cli" validate -no-color 2>&1); then
		echo "ok     $name"
	else
		echo "FAILED $name"
		printf '%s\n' "$out" | grep -v -e '^$' | sed 's/^/    /'
		failed+=("$name")
	fi
}

for d in "${dirs[@]}"; do
	if [[ $d == examples/fleet/opentofu && $host != registry.opentofu.org ]]; then
		echo "skip   $d (provider for_each is OpenTofu's)"
		continue
	fi
	if [[ $d == examples/actions/* && $actions == no ]]; then
		echo "skip   $d ($version_line has no actions)"
		continue
	fi
	validate_copy "$d"
	for f in "$root/$d"/import-by-*.tf; do
		[[ -e $f ]] || continue
		f=$(basename "$f")
		if [[ $f == import-by-identity.tf && $identity == no ]]; then
			echo "skip   $d/$f ($version_line has no resource identity)"
			continue
		fi
		validate_copy "$d" "$f"
	done
done

if ((${#failed[@]} > 0)); then
	echo "validate-examples: ${#failed[@]} of $checked example configurations failed $(basename "$cli") validate" >&2
	exit 1
fi
echo "validate-examples: $checked example configurations in ${#dirs[@]} folders valid ($(basename "$cli"))"
