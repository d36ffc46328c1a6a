#!/usr/bin/env bash
# Builds the Flux controllers used by the end-to-end test of flux/
# (flux/e2e_test.go, run with SYLVA_PLANNER_E2E=1) into .cache/testbin/:
#
#   helm-controller    github.com/fluxcd/helm-controller at $HELM_CONTROLLER_VERSION
#   source-controller  github.com/fluxcd/source-controller at $SOURCE_CONTROLLER_VERSION
#
# Like hack/build-testbin.sh, everything comes from the Go module proxy: a
# throw-away wrapper module per controller under .cache/testbin-src/ requires
# the controller and copies the replace directives of its go.mod (except the
# ones pointing inside the controller's own repository, whose published
# versions are required instead), because replace directives of a
# dependency are ignored. Each part is skipped when its stamp records the
# pinned version.
#
# Usage: hack/build-flux.sh [helm-controller] [source-controller]   (default: both)
# Environment: SYLVA_PLANNER_TESTBIN overrides the output directory.
set -euo pipefail

HELM_CONTROLLER_VERSION=v1.4.0
SOURCE_CONTROLLER_VERSION=v1.9.6
# Extra replace directives per controller, for requirements the module proxy
# does not serve: github.com/fluxcd/pkg/artifact v0.18.3, required by
# source-controller v1.9.6, answers 403 here; v0.18.0 is the closest served.
SOURCE_CONTROLLER_EXTRA_REPLACES=${SOURCE_CONTROLLER_EXTRA_REPLACES-"github.com/fluxcd/pkg/artifact => github.com/fluxcd/pkg/artifact v0.18.0"}
HELM_CONTROLLER_EXTRA_REPLACES=${HELM_CONTROLLER_EXTRA_REPLACES-}

log_prefix=build-flux
# shellcheck source=hack/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# replaces GOMOD: prints the replace directives of GOMOD, one per line, as
# "replace OLD => NEW VERSION", leaving out those that point to a local
# directory.
replaces() {
	awk '
		/^replace[[:space:]]*\($/ { inblock = 1; next }
		inblock && /^\)/ { inblock = 0; next }
		inblock { line = $0 }
		/^replace[[:space:]]+[^(]/ { line = $0; sub(/^replace[[:space:]]+/, "", line) }
		line != "" {
			sub(/\/\/.*/, "", line)
			n = split(line, f, /[[:space:]]+/)
			# fields: OLD [OLDVER] => NEW [NEWVER]
			arrow = 0
			for (i = 1; i <= n; i++) if (f[i] == "=>") arrow = i
			if (arrow > 0 && f[arrow + 1] !~ /^\.\.?\//) {
				gsub(/^[[:space:]]+|[[:space:]]+$/, "", line)
				print "replace " line
			}
			line = ""
		}
	' "$1"
}

# build NAME MODULE VERSION [EXTRA_REPLACE]: builds the main package at the
# root of MODULE; EXTRA_REPLACE ("OLD => NEW VERSION") overrides one
# requirement.
build() {
	local name=$1 module=$2 version=$3 extra=${4-}
	local want="$module@$version $go_version $extra"
	if [[ -x $out/$name && -f $out/.stamp-$name && $(cat "$out/.stamp-$name") == "$want" ]]; then
		log "$name: up to date ($want)"
		return
	fi
	local dir=$src/$name start=$SECONDS gomod
	log "$name: building $module@$version (several minutes when the build cache is cold)"
	gomod=$(module_gomod "$module@$version")
	rm -rf "$dir"
	mkdir -p "$dir"
	{
		printf 'module testbin/%s\n\ngo 1.26\n\nrequire %s %s\n\n' "$name" "$module" "$version"
		replaces "$gomod" | { if [[ -n $extra ]]; then grep -v "^replace ${extra%% *} " || true; else cat; fi; }
		if [[ -n $extra ]]; then printf 'replace %s\n' "$extra"; fi
	} >"$dir/go.mod"
	cat >"$dir/tools.go" <<EOF
//go:build tools

// Package tools pins the $name command in this wrapper module.
package tools

import _ "$module"
EOF
	(cd "$dir" && CGO_ENABLED=0 go build -tags tools -ldflags "-s -w" -o "$out/$name.tmp" "$module")
	mv "$out/$name.tmp" "$out/$name"
	printf '%s\n' "$want" >"$out/.stamp-$name"
	log "$name: built in $((SECONDS - start))s"
}

main() {
	mkdir -p "$out" "$src/download"
	printf 'module testbin/download\n\ngo 1.26\n' >"$src/download/go.mod"
	local parts=("$@")
	if ((${#parts[@]} == 0)); then
		parts=(helm-controller source-controller)
	fi
	local p
	for p in "${parts[@]}"; do
		case $p in
		helm-controller) build helm-controller github.com/fluxcd/helm-controller "$HELM_CONTROLLER_VERSION" "$HELM_CONTROLLER_EXTRA_REPLACES" ;;
		source-controller) build source-controller github.com/fluxcd/source-controller "$SOURCE_CONTROLLER_VERSION" "$SOURCE_CONTROLLER_EXTRA_REPLACES" ;;
		*)
			log "unknown part $p (want helm-controller or source-controller)"
			return 2
			;;
		esac
	done
	log "done: $out"
}

main "$@"
