#!/usr/bin/env bash
# Times `sylva-planner prune-audit --chart` on sylva-core main's chart with
# values.yaml and management.values.yaml (from the bundle at
# ../shared/sylva-core/sylva-core.bundle above the repository, or the
# checkout named by SYLVA_CORE_DIR). Reports the median wall time and CPU
# time of RUNS runs (default 5) and the highest peak RSS (GNU time).
# Target: median wall < 2 s, peak RSS < 200 MB.
#
#   hack/bench-prune-audit-chart.sh          # RUNS=9 to change
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
runs=${RUNS:-5}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$root"

# shellcheck source=hack/sylvacore.sh
source "$root/hack/sylvacore.sh"
chart=$(sylvacore_chart)

go build -o "$work/sylva-planner" ./cmd/sylva-planner

walls=() cpus=() rss=0
for _ in $(seq "$runs"); do
  /usr/bin/time -f '%e %U %S %M' -o "$work/time" "$work/sylva-planner" prune-audit --chart "$chart" \
    -f "$chart/values.yaml" -f "$chart/management.values.yaml" --fail-on never >/dev/null
  read -r wall user sys kb <"$work/time"
  walls+=("$wall")
  cpus+=("$(echo "$user + $sys" | bc)")
  (( kb > rss )) && rss=$kb
done
median() { printf '%s\n' "$@" | sort -n | sed -n "$(( ($# + 1) / 2 ))p"; }
printf 'prune-audit --chart (main, management values), %d runs: median wall %s s, median CPU %s s, peak RSS %d MB\n' \
  "$runs" "$(median "${walls[@]}")" "$(median "${cpus[@]}")" $(( rss / 1024 ))
