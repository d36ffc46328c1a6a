#!/usr/bin/env bash
# Builds the command-line tools the manifest tests run into .cache/testbin/:
#
#   kustomize   sigs.k8s.io/kustomize/kustomize/v5 at $KUSTOMIZE_VERSION, from
#               the Go module proxy (kustomize build config/default)
#   promtool    github.com/prometheus/prometheus/cmd/promtool at
#               $PROMETHEUS_VERSION, from the Go module proxy, without the
#               service discoveries (tag remove_all_sd), which rule checks
#               and rule unit tests never use (promtool check rules, promtool
#               test rules on config/prometheus)
#
# Each tool is skipped when its stamp records the pinned version.
# Usage: hack/build-tools.sh [kustomize] [promtool]   (default: both)
# Environment: SYLVA_PLANNER_TESTBIN overrides the output directory.
set -euo pipefail

KUSTOMIZE_VERSION=v5.8.1
PROMETHEUS_VERSION=v0.316.0

log_prefix=build-tools
# shellcheck source=hack/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# install NAME PACKAGE@VERSION [TAGS]: go install of one command into
# $out/NAME, skipped when the stamp records the same package, tags and Go.
install() {
	local name=$1 pkg=$2 tags=${3-}
	local want="$pkg $tags $go_version"
	if stamp_ok "$name" "$want" "$out/$name"; then
		log "$name: up to date ($want)"
		return
	fi
	local start=$SECONDS tmp
	log "$name: building $pkg"
	tmp=$(mktemp -d "$out/$name-bin.XXXXXX")
	(cd "$src/download" && GOBIN=$tmp CGO_ENABLED=0 go install -tags "$tags" -ldflags "-s -w" "$pkg")
	mv "$tmp/$name" "$out/$name"
	rmdir "$tmp"
	write_stamp "$name" "$want"
	log "$name: built in $((SECONDS - start))s"
}

mkdir -p "$out" "$src/download"
printf 'module testbin/download\n\ngo 1.26\n' >"$src/download/go.mod"
parts=("$@")
if ((${#parts[@]} == 0)); then
	parts=(kustomize promtool)
fi
for p in "${parts[@]}"; do
	case $p in
	kustomize) install kustomize "sigs.k8s.io/kustomize/kustomize/v5@$KUSTOMIZE_VERSION" ;;
	promtool) install promtool "github.com/prometheus/prometheus/cmd/promtool@$PROMETHEUS_VERSION" remove_all_sd ;;
	*)
		log "unknown tool $p (want kustomize or promtool)"
		exit 2
		;;
	esac
done
log "done: $out"
