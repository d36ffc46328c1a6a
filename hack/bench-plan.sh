#!/usr/bin/env bash
# Times the whole `sylva-planner plan --from 1.4 --to 1.6` process of the one
# binary `make build` installs: wall clock per run (best and median of RUNS)
# and peak RSS, with /usr/bin/time. Target: under 50 ms and under 50 MB.
# INITTRACE=1 also prints the ten most expensive package initialisations
# (GODEBUG=inittrace=1), to find what a start-up regression costs.
#
# Usage: hack/bench-plan.sh
# Environment:
#   RUNS       number of timed runs (default 20)
#   BIN        the sylva-planner binary to time (default: built into a temp dir)
#   INITTRACE  1 to print the costliest package inits
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
runs=${RUNS:-20}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
log() { printf 'bench-plan: %s\n' "$*" >&2; }

bin=${BIN:-}
if [[ -z $bin ]]; then
	bin=$tmp/sylva-planner
	(cd "$root" && go build -o "$bin" ./cmd/sylva-planner)
fi
if [[ ! -x /usr/bin/time ]]; then
	log "/usr/bin/time (GNU time) is required: apt-get install time"
	exit 1
fi
args=(plan --from 1.4 --to 1.6 --as-of 2026-11-30)

"$bin" "${args[@]}" >/dev/null # warm the page cache
# GNU time counts wall time in steps of 10 ms, too coarse for a 50 ms
# target: the wall time is read around it in microseconds from bash's
# EPOCHREALTIME, which starts no process (it includes the start of time
# itself, well under a millisecond).
for ((i = 0; i < runs; i++)); do
	start=$EPOCHREALTIME
	/usr/bin/time -f '%e %U %S %M' -o "$tmp/t.$i" "$bin" "${args[@]}" >/dev/null
	echo "$start $EPOCHREALTIME" >"$tmp/w.$i"
done
# Wall time suffers from a loaded machine; CPU time (user + system) much
# less, so both are printed.
median() { sort -n | awk '{ v[NR] = $1 } END { printf "best %.0f ms, median %.0f ms", v[1], v[int((NR + 1) / 2)] }'; }
wall=$(awk '{ print ($2 - $1) * 1000 }' "$tmp"/w.* | median)
cpu=$(awk '{ print ($2 + $3) * 1000 }' "$tmp"/t.* | median)
rss=$(awk '$4 > m { m = $4 } END { printf "%.1f", m / 1024 }' "$tmp"/t.*)
load=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)
echo "plan --from 1.4 --to 1.6: wall $wall; CPU $cpu; peak RSS $rss MB ($runs runs, load average $load on $(nproc) CPUs; target < 50 ms, < 50 MB)"
if [[ ${INITTRACE:-} == 1 ]]; then
	GODEBUG=inittrace=1 "$bin" "${args[@]}" 2>&1 >/dev/null | awk '/^init / { t += $5; b += $8; printf "%8.3f ms %8d B  %s\n", $5, $8, $2 } END { printf "%8.3f ms %8d B  all package inits\n", t, b }' | sort -rn | head -11
fi
