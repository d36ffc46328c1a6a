#!/usr/bin/env bash
# Times `sylva-planner values render --chart` against `helm template` on the
# real sylva-units chart: test-values/upgrade-mgmt-cabpr of sylva-core's
# main (from the bundle at ../shared/sylva-core/sylva-core.bundle above the
# repository, or the checkout named by SYLVA_CORE_DIR); then the whole
# `values check --chart` of a three-pass plan (1.1 → 1.4, the embedded
# catalog with 1.4 accepting 1.1 and 1.2) against one `helm template` of the
# same values (values.yaml and management.values.yaml); then `prune-audit
# --chart` of those values against the same `helm template` (its target is
# absolute, 1 s of CPU: the ratio says what it is on a machine of another
# speed, or this one in a slower hour). Helm's CLI is built
# from the Go module proxy at go.mod's Helm version into .cache/bin (outside
# git). Reports the median wall time of RUNS runs (default 5) and the peak
# RSS of each (GNU time).
#
#   hack/bench-chart.sh                # CASE=management RUNS=9 to change
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
runs=${RUNS:-5}
case_name=${CASE:-upgrade-mgmt-cabpr}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$root"

helm_version=$(go list -m -f '{{.Version}}' helm.sh/helm/v3)
helm=$root/.cache/bin/helm
if [[ ! -x $helm || $(cat "$root/.cache/bin/.helm-version" 2>/dev/null) != "$helm_version" ]]; then
  echo "building helm $helm_version into .cache/bin ..." >&2
  mkdir -p "$root/.cache/bin"
  (cd "$work" && GOWORK=off GOFLAGS=-mod=mod GOBIN="$root/.cache/bin" go install "helm.sh/helm/v3/cmd/helm@$helm_version")
  echo "$helm_version" >"$root/.cache/bin/.helm-version"
fi

# shellcheck source=hack/sylvacore.sh
source "$root/hack/sylvacore.sh"
chart=$(sylvacore_chart)
dir=$chart/test-values/$case_name
args=()
while IFS= read -r f; do
  [[ $(basename "$f") == test-spec.yaml || ! -e $f ]] && continue
  args+=(--values "$f")
done < <(ls "$dir"/*.y*ml | sort)

go build -o "$work/sylva-planner" ./cmd/sylva-planner

median() { sort -n | sed -n "$(( (runs + 1) / 2 ))p"; }

measure() { # name, command...: prints "median-wall min-wall median-cpu peak-rss-kib"
  local name=$1; shift
  local walls=() cpus=() rss=0 wall user sys kb
  for _ in $(seq "$runs"); do
    /usr/bin/time -f '%e %U %S %M' -o "$work/time" "$@" >"$work/out.$name" 2>"$work/err.$name" || { cat "$work/err.$name" >&2; exit 1; }
    read -r wall user sys kb <"$work/time"
    walls+=("$wall")
    cpus+=("$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')")
    (( kb > rss )) && rss=$kb
  done
  echo "$(printf '%s\n' "${walls[@]}" | median) $(printf '%s\n' "${walls[@]}" | sort -n | head -1) $(printf '%s\n' "${cpus[@]}" | median) $rss"
}

read -r ow omin oc orss <<<"$(measure ours "$work/sylva-planner" values render --chart "$chart" -n default --skip-schema-validation -o json "${args[@]}")"
read -r hw hmin hc hrss <<<"$(measure helm "$helm" template sylva-units "$chart" --skip-schema-validation "${args[@]}")"

# The three-pass check: 1.4 accepts 1.1 and 1.2 in an edited catalog.
"$work/sylva-planner" catalog list -o yaml >"$work/catalog.yaml"
perl -0pi -e 's/upgrade_from:\n  - "1.3"\n/upgrade_from:\n  - "1.1"\n  - "1.2"\n  - "1.3"\n/' "$work/catalog.yaml"
mgmt=(--values "$chart/values.yaml" --values "$chart/management.values.yaml")
read -r cw cmin cc crss <<<"$(measure check "$work/sylva-planner" values check --chart "$chart" -f "$chart/values.yaml" -f "$chart/management.values.yaml" \
  --from 1.1 --to 1.4 --catalog "$work/catalog.yaml" --skip-schema-validation --fail-on never -o json)"
grep -q '"scenarios"' "$work/out.check" || { echo "values check --chart printed no scenarios" >&2; exit 1; }
read -r mw mmin mc mrss <<<"$(measure helm-mgmt "$helm" template sylva-units "$chart" --skip-schema-validation "${mgmt[@]}")"
read -r pw pmin pc prss <<<"$(measure prune "$work/sylva-planner" prune-audit --chart "$chart" -f "$chart/values.yaml" -f "$chart/management.values.yaml" --fail-on never)"

echo "chart: sylva-units of sylva-core main, test-values/$case_name; helm $helm_version; $runs runs each; load average: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-36s %11s %11s %11s %14s\n' "" "wall (med)" "wall (min)" "cpu (med)" "peak RSS"
printf '%-36s %10ss %10ss %10ss %10d KiB\n' "sylva-planner values render --chart" "$ow" "$omin" "$oc" "$orss"
printf '%-36s %10ss %10ss %10ss %10d KiB\n' "helm template" "$hw" "$hmin" "$hc" "$hrss"
# On a loaded machine the minimum wall time and the CPU time are the least
# disturbed figures.
awk -v o="$ow" -v h="$hw" -v om="$omin" -v hm="$hmin" -v oc="$oc" -v hc="$hc" -v orss="$orss" -v hrss="$hrss" 'BEGIN {
  printf "ratio ours/helm: wall median %.3f (target <= 0.10), wall min %.3f, cpu %.3f; peak RSS %.3f (target <= 0.30)\n", o / h, om / hm, oc / hc, orss / hrss }'

echo
echo "values check --chart of a three-pass plan (1.1 → 1.4; $(grep -o '"name":' "$work/out.check" | wc -l) scenarios) against one helm template, management values"
printf '%-36s %11s %11s %11s %14s\n' "" "wall (med)" "wall (min)" "cpu (med)" "peak RSS"
printf '%-36s %10ss %10ss %10ss %10d KiB\n' "sylva-planner values check --chart" "$cw" "$cmin" "$cc" "$crss"
printf '%-36s %10ss %10ss %10ss %10d KiB\n' "helm template" "$mw" "$mmin" "$mc" "$mrss"
awk -v o="$cw" -v h="$mw" -v om="$cmin" -v hm="$mmin" -v oc="$cc" -v hc="$mc" -v orss="$crss" -v hrss="$mrss" 'BEGIN {
  printf "ratio check/helm: wall median %.3f (target <= 1), wall min %.3f, cpu %.3f (target <= 1); peak RSS %.3f (target <= 0.5)\n", o / h, om / hm, oc / hc, orss / hrss }'

echo
echo "prune-audit --chart of the same values against the same helm template"
printf '%-36s %11s %11s %11s %14s\n' "" "wall (med)" "wall (min)" "cpu (med)" "peak RSS"
printf '%-36s %10ss %10ss %10ss %10d KiB\n' "sylva-planner prune-audit --chart" "$pw" "$pmin" "$pc" "$prss"
printf '%-36s %10ss %10ss %10ss %10d KiB\n' "helm template" "$mw" "$mmin" "$mc" "$mrss"
awk -v o="$pw" -v h="$mw" -v om="$pmin" -v hm="$mmin" -v oc="$pc" -v hc="$mc" -v orss="$prss" -v hrss="$mrss" 'BEGIN {
  printf "ratio prune-audit/helm: wall median %.3f, wall min %.3f, cpu %.3f (target: cpu <= 1 s, here %.2f s); peak RSS %.3f\n", o / h, om / hm, oc / hc, oc, orss / hrss }'
