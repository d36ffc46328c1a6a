# Shared by the benchmark scripts that run on the real sylva-units chart;
# source it after setting root (the module root) and work (a scratch
# directory). sylvacore_chart prints the path of the chart of main: the
# checkout named by SYLVA_CORE_DIR, or main extracted from the sylva-core
# bundle found beside the project (shared/sylva-core/sylva-core.bundle).

sylvacore_chart() {
  if [[ -n ${SYLVA_CORE_DIR:-} ]]; then
    printf '%s\n' "$SYLVA_CORE_DIR/charts/sylva-units"
    return
  fi
  local bundle= d
  for d in "$root" "$root/.." "$root/../.." "$root/../../.."; do
    if [[ -f $d/shared/sylva-core/sylva-core.bundle ]]; then bundle=$d/shared/sylva-core/sylva-core.bundle; break; fi
  done
  if [[ -z $bundle ]]; then
    echo "no sylva-core: set SYLVA_CORE_DIR or put the bundle at ../shared/sylva-core/sylva-core.bundle" >&2
    return 1
  fi
  git clone -q --bare "$bundle" "$work/sylva-core.git"
  mkdir -p "$work/tree"
  git -C "$work/sylva-core.git" archive main charts/sylva-units | tar -x -C "$work/tree"
  printf '%s\n' "$work/tree/charts/sylva-units"
}
