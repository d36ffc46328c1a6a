#!/usr/bin/env bash
# Builds the release archives of the kubectl plugin and its krew manifest:
#
#   bin/dist/sylva-planner_VERSION_OS_ARCH.tar.gz   one static binary,
#       kubectl-sylva_planner, per platform of hack/krew/sylva-planner.yaml
#       (reproducible: sorted, owned by 0:0, dated at the Unix epoch)
#   bin/dist/sylva-planner.yaml                     the manifest, with the
#       version, the download location and each archive's sha256 filled in
#
# Upload the archives to the release named VERSION (URL_BASE is where they
# will be downloaded from), then submit the manifest to krew-index.
# Usage: hack/krew.sh VERSION LDFLAGS
# Environment: URL_BASE (default: the GitLab release's downloads),
# PLATFORMS (default: every platform of the manifest, "os/arch ...").
set -euo pipefail

version=${1:?usage: hack/krew.sh VERSION LDFLAGS}
ldflags=${2:-}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
template=$root/hack/krew/sylva-planner.yaml
dist=$root/bin/dist
URL_BASE=${URL_BASE:-https://gitlab.com/sylva-projects/sylva-planner/-/releases/$version/downloads}
# The platforms the manifest lists, "os/arch".
all=$(sed -n 's/.*matchLabels: {os: \([a-z0-9]*\), arch: \([a-z0-9]*\)}.*/\1\/\2/p' "$template")
PLATFORMS=${PLATFORMS:-$all}

rm -rf "$dist"
mkdir -p "$dist"
export VERSION=$version URL_BASE
for p in $all; do
	os=${p%/*} arch=${p#*/}
	var=SHA256_${os}_${arch}
	if ! grep -qx "$p" <<<"${PLATFORMS// /$'\n'}"; then
		export "$var=NOT-BUILT"
		continue
	fi
	work=$(mktemp -d)
	CGO_ENABLED=0 GOOS=$os GOARCH=$arch go build -trimpath -buildvcs=false -ldflags "$ldflags -s -w -buildid=" -o "$work/kubectl-sylva_planner" "$root/cmd/sylva-planner"
	archive=$dist/sylva-planner_${version}_${os}_${arch}.tar.gz
	tar --sort=name --owner=0 --group=0 --numeric-owner --mtime=@0 -C "$work" -cf - kubectl-sylva_planner | gzip -n >"$archive"
	rm -rf "$work"
	export "$var=$(sha256sum "$archive" | cut -d' ' -f1)"
	echo "krew: $(basename "$archive") ${!var}" >&2
done
# Fill in ${VAR} with the exported values only; a placeholder left over is
# an error.
perl -pe 's/\$\{(\w+)\}/exists $ENV{$1} ? $ENV{$1} : die "unset placeholder $1\n"/ge' "$template" | sed '1,/^apiVersion:/{/^#/d}' >"$dist/sylva-planner.yaml"
echo "krew: $dist/sylva-planner.yaml" >&2
