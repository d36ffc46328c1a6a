#!/usr/bin/env bash
# Builds the command-line tools the manifest tests run into .cache/testbin/:
#
#   kustomize   sigs.k8s.io/kustomize/kustomize/v5 at $KUSTOMIZE_VERSION, from
#               the Go module proxy (kustomize build config/default)
#
# promtool (promtool check rules config/prometheus/...) comes from Debian's
# prometheus package, which .ci/run installs; the tests use it from PATH.
#
# Each tool is skipped when its stamp records the pinned version.
# Usage: hack/build-tools.sh
# Environment: SYLVA_PLANNER_TESTBIN overrides the output directory.
set -euo pipefail

KUSTOMIZE_VERSION=v5.8.1

log_prefix=build-tools
# shellcheck source=hack/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

build_kustomize() {
	local want="sigs.k8s.io/kustomize/kustomize/v5@$KUSTOMIZE_VERSION $go_version"
	if stamp_ok kustomize "$want" "$out/kustomize"; then
		log "kustomize: up to date ($want)"
		return
	fi
	local start=$SECONDS tmp
	log "kustomize: building sigs.k8s.io/kustomize/kustomize/v5@$KUSTOMIZE_VERSION"
	tmp=$(mktemp -d "$out/kustomize-bin.XXXXXX")
	(cd "$src/download" && GOBIN=$tmp CGO_ENABLED=0 go install "sigs.k8s.io/kustomize/kustomize/v5@$KUSTOMIZE_VERSION")
	mv "$tmp/kustomize" "$out/kustomize"
	rmdir "$tmp"
	write_stamp kustomize "$want"
	log "kustomize: built in $((SECONDS - start))s"
}

mkdir -p "$out" "$src/download"
printf 'module testbin/download\n\ngo 1.26\n' >"$src/download/go.mod"
build_kustomize
log "done: $out"
