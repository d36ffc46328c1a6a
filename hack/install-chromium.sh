#!/usr/bin/env bash
# Installs Debian's chromium, which the HTML report's browser test
# (internal/browsertest, run with SYLVA_PLANNER_BROWSER=1) renders the report
# in. It does nothing when /usr/bin/chromium exists; as root it installs the
# package with apt-get; otherwise it says what to install and fails.
# Usage: hack/install-chromium.sh
set -euo pipefail

chromium=/usr/bin/chromium

if [[ -x $chromium ]]; then
	exit 0
fi
if [[ $(id -u) -ne 0 ]]; then
	echo "install-chromium: $chromium is missing: install Debian's chromium package (apt-get install chromium) as root, or run this script as root" >&2
	exit 1
fi
echo "install-chromium: installing Debian's chromium package" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >/dev/null
if [[ ! -x $chromium ]]; then
	echo "install-chromium: apt-get installed chromium but $chromium is missing" >&2
	exit 1
fi
