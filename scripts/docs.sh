#!/usr/bin/env bash
# docs.sh [generate|check|sizes [DIR]]
#
#   generate  (make docs) regenerate docs/ with tfplugindocs from the provider
#             schema, templates/ and examples/, then internal/docsgen, which
#             documents the pod template once (docs/guides/pod-template.md)
#             instead of under every template of every page.
#   check     (make docs-check, part of make test) regenerate into a temporary
#             copy of the tree and fail if docs/ differs, without touching the
#             working tree; then fail if a page is over 250 KB (sizes)
#             or if tfplugindocs validate fails.
#   sizes     fail if a Markdown page under DIR (default docs/) is over
#             250 KB (250000 bytes).
#
# tfplugindocs is built from tools/docs (scripts/tool.sh) and runs the terraform
# it finds on PATH: here the newest Terraform (tools/terraform, built the same
# way), since only Terraform 1.12 and later report the resource identity
# schemas the import sections document. Nothing is downloaded.
set -euo pipefail

mode=${1:-generate}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)

# The Terraform Registry truncates a page over 500 KB (tfplugindocs validate fails there). Pages
# must stay well under it, so that the pod template growing with the next Kubernetes or
# LeaderWorkerSet release cannot block a release: fail at 250 KB.
max_page_bytes=250000

check_sizes() { # check_sizes DIR: fail if a Markdown page under DIR is over max_page_bytes
	local dir=$1 f size rc=0 largest=0
	while IFS= read -r -d '' f; do
		size=$(wc -c <"$f")
		((size > largest)) && largest=$size
		if ((size > max_page_bytes)); then
			echo "docs: ${f#"$dir"/} is $size bytes, over the limit of $max_page_bytes bytes per page (the Registry's is 500000)" >&2
			rc=1
		fi
	done < <(find "$dir" -type f -name '*.md' -print0 | sort -z)
	if ((rc == 0)); then
		echo "docs: every page is at most $max_page_bytes bytes (the largest: $largest)"
	fi
	return $rc
}

if [[ $mode == sizes ]]; then
	check_sizes "${2:-$root/docs}"
	exit
fi

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
	# The pod template once, on docs/guides/pod-template.md, from the pages just generated.
	(cd "$1" && go run ./internal/docsgen -docs docs)
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
		echo "docs: tfplugindocs generate or internal/docsgen failed" >&2
		exit 1
	}
	rm -f "$work.log"
	if ! diff -ruN "$root/docs" "$work/docs"; then
		echo "docs: docs/ is out of date; run 'make docs' and commit the result" >&2
		exit 1
	fi
	echo "docs: docs/ is up to date"
	check_sizes "$root/docs" || {
		echo "docs: pages over $max_page_bytes bytes: shorten them (internal/docsgen, templates/)" >&2
		exit 1
	}
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
	echo "usage: docs.sh [generate|check|sizes [DIR]]" >&2
	exit 2
	;;
esac
