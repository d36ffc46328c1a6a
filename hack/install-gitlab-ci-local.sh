#!/usr/bin/env bash
# Installs gitlab-ci-local, which the test of ci-matrix's child pipelines
# (cmd/sylva-planner, run with SYLVA_PLANNER_GITLAB_CI_LOCAL=1) parses them
# with, into .cache/gitlab-ci-local: the version and dependencies
# hack/gitlab-ci-local/package-lock.json pins, from the npm registry with
# `npm ci`. It needs Node.js 18 or later (4.65.1 is the newest gitlab-ci-local
# that runs on Debian 12's Node.js 18) and npm: as root it installs Debian's
# nodejs and npm packages with apt-get when they are missing; otherwise it
# says what to install and fails. It does nothing when the pinned tree is
# installed already.
# Usage: hack/install-gitlab-ci-local.sh
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
pin=$root/hack/gitlab-ci-local
dir=$root/.cache/gitlab-ci-local
bin=$dir/node_modules/.bin/gitlab-ci-local

log() { printf 'install-gitlab-ci-local: %s\n' "$*" >&2; }

# The stamp is the digest of the pin: a new pin reinstalls.
want=$(cat "$pin/package.json" "$pin/package-lock.json" | sha256sum | cut -d' ' -f1)
if [[ -x $bin && -f $dir/.stamp && $(<"$dir/.stamp") == "$want" ]]; then
	exit 0
fi

if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
	if [[ $(id -u) -ne 0 ]]; then
		log "Node.js or npm is missing: install Debian's nodejs and npm packages (apt-get install nodejs npm) as root, or run this script as root"
		exit 1
	fi
	log "installing Debian's nodejs and npm packages"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends nodejs npm >/dev/null
	if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
		log "apt-get installed nodejs and npm but node or npm is missing from PATH"
		exit 1
	fi
fi
major=$(node -p 'process.versions.node.split(".")[0]')
if ((major < 18)); then
	log "Node.js $(node --version) is too old: gitlab-ci-local needs 18 or later"
	exit 1
fi

version=$(node -p "require('$pin/package.json').dependencies['gitlab-ci-local']")
log "installing gitlab-ci-local $version into .cache/gitlab-ci-local (Node.js $(node --version))"
rm -rf "$dir"
mkdir -p "$dir"
cp "$pin/package.json" "$pin/package-lock.json" "$dir/"
# No package of the pin has an install script; none may run.
NPM_CONFIG_UPDATE_NOTIFIER=false npm ci --prefix "$dir" --ignore-scripts --no-audit --no-fund --loglevel=error >/dev/null
if [[ ! -x $bin ]]; then
	log "npm ci finished but $bin is missing"
	exit 1
fi
printf '%s\n' "$want" >"$dir/.stamp"
