#!/usr/bin/env bash
# build.sh VERSION OUT: build the Terraform CLI VERSION from its source on the Go
# module proxy into OUT (scripts/tool.sh terraform calls it and caches OUT).
#
# The proxy's zip of github.com/hashicorp/terraform holds the root module only:
# the nested modules its go.mod replaces with local directories (the
# azurerm, consul, cos, gcs, kubernetes, oci, oss, pg and s3 state backends and
# internal/legacy, which only they import) are not in it. The build drops those
# requirements and the backends' entries in internal/backend/init/init.go, the
# one file that imports them. The result is the release's CLI with the local,
# remote, http, inmem and cloud backends: what provider tests use. Releases
# whose backends are still in the root module (1.8) build unchanged.
set -euo pipefail

version=${1:?usage: build.sh VERSION OUT}
out=${2:?usage: build.sh VERSION OUT}
mod=github.com/hashicorp/terraform
dropped=(azure consul cos gcs kubernetes oci oss pg s3)

# GOWORK=off, GOFLAGS=: never pick up a go.work or flags of the caller's module.
export GOWORK=off GOFLAGS=
src=$(cd / && go mod download -json "$mod@$version" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
[[ -d $src ]] || {
	echo "build.sh: go mod download $mod@$version gave no source directory" >&2
	exit 1
}
work=$(mktemp -d)
trap 'chmod -R u+w "$work"; rm -rf -- "$work"' EXIT
cp -R "$src/." "$work"
chmod -R u+w "$work"
cd "$work"

# Releases before the backends moved to nested modules (1.8 has none) build as they are.
missing=()
for b in "${dropped[@]}"; do
	if grep -q "=> ./internal/backend/remote-state/$b\$" go.mod && [[ ! -d internal/backend/remote-state/$b ]]; then
		missing+=("$b")
	fi
done
if ((${#missing[@]} == 0)); then
	go build -mod=mod -trimpath -ldflags "-s -w -X $mod/version.dev=no" -o "$out" .
	exit 0
fi

edits=(-droprequire="$mod/internal/legacy" -dropreplace="$mod/internal/legacy")
for b in "${missing[@]}"; do
	edits+=(-droprequire="$mod/internal/backend/remote-state/$b" -dropreplace="$mod/internal/backend/remote-state/$b")
done
go mod edit "${edits[@]}"

init=internal/backend/init/init.go
for b in "${missing[@]}"; do
	# The import line ("…/remote-state/s3") and the map entry using its alias.
	alias=$(sed -n "s|^[[:space:]]*\([A-Za-z0-9]*\) \"$mod/internal/backend/remote-state/$b\"$|\1|p" "$init")
	[[ -n $alias ]] || {
		echo "build.sh: $init of $version does not import the $b backend as expected; update build.sh" >&2
		exit 1
	}
	sed -i -e "\|\"$mod/internal/backend/remote-state/$b\"|d" -e "/$alias\.New()/d" "$init"
done
if grep -q 'remote-state/\(azure\|consul\|cos\|gcs\|kubernetes\|oci\|oss\|pg\|s3\)"' "$init"; then
	echo "build.sh: $init still imports a dropped backend" >&2
	exit 1
fi

# -mod=mod: go.sum may lack nothing the smaller build graph needs, but lets go
# record it if it does. The version is stamped as the release's own build does.
go build -mod=mod -trimpath -ldflags "-s -w -X $mod/version.dev=no" -o "$out" .
