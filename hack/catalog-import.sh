#!/usr/bin/env bash
# Rebuild the imported blocks of catalog/data/releases.yaml from sylva-core,
# or (--verify) check that they are current.
#
# sylva-core comes from SYLVA_CORE_DIR (a checkout with the refs below),
# else from the bundle shared/sylva-core/sylva-core.bundle found in an
# ancestor directory (or SYLVA_CORE_BUNDLE), cloned into a temporary
# directory. The refs are the ones the embedded catalog is built from:
# tags 1.0.0 and 1.2.1, the release-1.3 branch (it wins over tag 1.3.10) and
# main (the 1.4 development line). The lite build is enough, and builds fast.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
refs=(1.0.0 1.2.1 1.3.10 release-1.3 main)
mode=update
[[ ${1:-} == --verify ]] && mode=verify

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

core=${SYLVA_CORE_DIR:-}
if [[ -z $core ]]; then
	bundle=${SYLVA_CORE_BUNDLE:-}
	if [[ -z $bundle ]]; then
		d=$root
		while [[ $d != / ]]; do
			if [[ -f $d/shared/sylva-core/sylva-core.bundle ]]; then
				bundle=$d/shared/sylva-core/sylva-core.bundle
				break
			fi
			d=$(dirname "$d")
		done
	fi
	if [[ -z $bundle ]]; then
		echo "catalog-import: no sylva-core: set SYLVA_CORE_DIR to a checkout, or SYLVA_CORE_BUNDLE to the bundle" >&2
		exit 1
	fi
	git clone --quiet --bare "$bundle" "$tmp/sylva-core"
	core=$tmp/sylva-core
fi

args=()
for r in "${refs[@]}"; do
	args+=(--ref "$r")
done

cp -r "$root/catalog/data" "$tmp/data"
(cd "$root" && go run -tags lite ./cmd/sylva-planner catalog import --sylva-core "$core" "${args[@]}" \
	--catalog "$tmp/data" --update "$tmp/data/releases.yaml" >/dev/null)

case $mode in
update)
	cp "$tmp/data/releases.yaml" "$root/catalog/data/releases.yaml"
	echo "catalog-import: catalog/data/releases.yaml rebuilt from ${refs[*]}" >&2
	;;
verify)
	if ! diff -u "$root/catalog/data/releases.yaml" "$tmp/data/releases.yaml"; then
		echo "catalog-import: catalog/data/releases.yaml is not what sylva-core says; run make catalog and review the diff" >&2
		exit 1
	fi
	echo "catalog-import: the imported blocks of catalog/data/releases.yaml are current" >&2
	;;
esac
