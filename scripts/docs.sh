#!/usr/bin/env bash
# docs.sh [generate|check]
#
#   generate  (make docs) regenerate docs/ with tfplugindocs from the provider
#             schema, templates/ and examples/.
#   check     (make docs-check, part of make test) regenerate into a temporary
#             copy of the tree and fail if docs/ differs, without touching the
#             working tree.
#
# tfplugindocs is built from tools/docs (scripts/tool.sh) and runs the terraform
# it finds on PATH: here the newest Terraform (tools/terraform, built the same
# way), since only Terraform 1.12 and later report the resource identity
# schemas the import sections document. Nothing is downloaded.
set -euo pipefail

mode=${1:-generate}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
tfplugindocs=$("$root/scripts/tool.sh" tfplugindocs)
terraform_latest=$("$root/scripts/tool.sh" terraform)
tfbin=$(mktemp -d "${TMPDIR:-/tmp}/kubeinfer-docs-bin.XXXXXX")
ln -s "$terraform_latest" "$tfbin/terraform"
PATH=$tfbin:$PATH
export CHECKPOINT_DISABLE=1
# tfplugindocs runs terraform init against a local provider; a CLI config
# with dev_overrides or a missing file only produces noise.
TF_CLI_CONFIG_FILE=/dev/null
export TF_CLI_CONFIG_FILE

generate() { # generate DIR
	(cd "$1" && "$tfplugindocs" generate --provider-name kubeinfer --provider-dir . --rendered-provider-name kubeinfer)
}

case $mode in
generate)
	trap 'rm -rf -- "$tfbin"' EXIT
	generate "$root"
	;;
check)
	work=$(mktemp -d "${TMPDIR:-/tmp}/kubeinfer-docs.XXXXXX")
	trap 'rm -rf -- "$work" "$tfbin"' EXIT
	# A copy of the sources tfplugindocs reads (go files, templates, examples,
	# docs); no .git, no build output.
	tar -C "$root" --exclude=./.git --exclude=./dist --exclude=./bin --exclude=./.cache \
		--exclude='.terraform' --exclude='*.tfstate*' -cf - . | tar -C "$work" -xf -
	generate "$work" >"$work.log" 2>&1 || {
		cat "$work.log" >&2
		rm -f "$work.log"
		echo "docs: tfplugindocs generate failed" >&2
		exit 1
	}
	rm -f "$work.log"
	if ! diff -ruN "$root/docs" "$work/docs"; then
		echo "docs: docs/ is out of date; run 'make docs' and commit the result" >&2
		exit 1
	fi
	echo "docs: docs/ is up to date"
	# The registry's own checks, page size (500 KB) included.
	if ! (cd "$root" && "$tfplugindocs" validate --provider-name kubeinfer >"$work.log" 2>&1); then
		cat "$work.log" >&2
		rm -f "$work.log"
		echo "docs: tfplugindocs validate failed (the Terraform Registry would reject these docs)" >&2
		exit 1
	fi
	rm -f "$work.log"
	echo "docs: tfplugindocs validate passed"
	;;
*)
	echo "usage: docs.sh [generate|check]" >&2
	exit 2
	;;
esac
