#!/usr/bin/env bash
# validate-examples.sh [CLI]: run `CLI validate` in every folder under
# examples/ that holds .tf files (CLI: terraform by default, or a tofu binary).
#
# No registry is contacted: the provider is built from this tree and found
# through a dev_overrides CLI configuration, so `init` is not run. Each folder
# is validated in a temporary copy; folders that do not declare
# required_providers (the per-resource snippets that tfplugindocs embeds in
# docs/) get a small file declaring source = "kubeinfer/kubeinfer".
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
case $("$cli" version 2>/dev/null) in
*OpenTofu*) host=registry.opentofu.org ;;
esac

work=$(mktemp -d "${TMPDIR:-/tmp}/kubeinfer-validate.XXXXXX")
trap 'rm -rf -- "$work"' EXIT

mkdir -p "$work/providers"
(cd "$root" && go build -o "$work/providers/terraform-provider-kubeinfer" .)
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

failed=()
i=0
for d in "${dirs[@]}"; do
	i=$((i + 1))
	copy=$work/ex$i
	mkdir -p "$copy"
	# Only the folder itself: subfolders are validated on their own.
	find "$root/$d" -maxdepth 1 -type f \( -name '*.tf' -o -name '*.tfvars' -o -name '*.tftpl' \) -exec cp {} "$copy/" \;
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
	if out=$(cd "$copy" && "$cli" validate -no-color 2>&1); then
		echo "ok     $d"
	else
		echo "FAILED $d"
		printf '%s\n' "$out" | grep -v -e '^$' | sed 's/^/    /'
		failed+=("$d")
	fi
done

if ((${#failed[@]} > 0)); then
	echo "validate-examples: ${#failed[@]} of ${#dirs[@]} example folders failed $(basename "$cli") validate" >&2
	exit 1
fi
echo "validate-examples: ${#dirs[@]} example folders valid ($(basename "$cli"))"
