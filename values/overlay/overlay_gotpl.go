package overlay

import (
	"fmt"
	"strconv"
	"strings"

	"gitlab.com/sylva-projects/sylva-planner/semver"
	"gitlab.com/sylva-projects/sylva-planner/status"
)

// stateTemplate is the gotpl string of _internal.state.release_transition:
// it reads the status ConfigMap once and gives the values of the pass as
// a JSON object.
//
//   - no ConfigMap: a fresh install, final values;
//   - a ConfigMap whose release minor is not the target's: the first pass
//     from that release. The release is sylva_release, else the minor of a
//     release chart version (sylva-units-chart-version), else the minor of
//     a release branch (sylva_branch release-1.5), else Legacy, in the
//     order status.Status.Release reads them; a pre-release or patch
//     version counts as its minor; another branch (main), a branch name or
//     a development version in sylva_release matches nothing and gets the
//     final values;
//   - the target's minor with additional_reconciliation_required "true":
//     the pass after transition_pass of the transition from
//     transition_from; with neither key, the pass planner.UnkeyedOf
//     places (readUnkeyed), or, when several could be pending, a failed
//     render naming them;
//   - otherwise the cluster is settled: final values;
//   - a pass from a source the overlay leaves out (Uncovered) fails the
//     render, naming why.
//
// The four status keys are read from the ConfigMap's data, else from the
// YAML of its additional-info (where the chart writes them); data wins.
func (g *Generated) stateTemplate() string {
	target := semver.MustParse(g.To).Short()
	lines := g.chartReleaseLines()
	lines = append(lines, `{{- if eq $chartRelease "`+target+`" }}`)
	lines = append(lines, g.machineLines()...)
	// In the chart of an earlier hop's release, that hop's passes.
	for _, h := range g.Hops {
		lines = append(lines, `{{- else if eq $chartRelease "`+semver.MustParse(h.To).Short()+`" }}`)
		lines = append(lines, h.machineLines()...)
	}
	lines = append(lines, `{{- else }}`)
	lines = append(lines, g.inertLines()...)
	return strings.Join(append(lines, `{{- end }}`), "\n")
}

// machineLines are the lines of the state template in the chart of g's
// own release: the pass the status asks for, as a JSON object.
func (g *Generated) machineLines() []string {
	target := semver.MustParse(g.To).Short()
	var lines []string
	lines = append(lines, []string{
		`{{- $status := lookup "v1" "ConfigMap" .Release.Namespace "` + status.ConfigMapName + `" | default dict }}`,
		`{{- $data := get $status "data" | default dict }}`,
		`{{- $info := get $data "` + AdditionalInfo + `" | default "" | toString | fromYaml | default dict }}`,
		`{{- $st := dict }}`,
		`{{- range $k := list "` + strings.Join(statusKeys, `" "`) + `" }}`,
		`{{-   if hasKey $data $k }}`,
		`{{-     $_ := set $st $k (get $data $k | toString) }}`,
		`{{-   else if hasKey $info $k }}`,
		`{{-     $_ := set $st $k (get $info $k | toString) }}`,
		`{{-   end }}`,
		`{{- end }}`,
		`{{- $state := "" }}`,
		`{{- if $status }}`,
		`{{-   $branch := get $data "` + KeySylvaBranch + `" | default "" | toString }}`,
		`{{-   if and $branch (not (regexMatch "^release-[0-9]+[.][0-9]+$" $branch)) }}`,
		`{{-     $branch = "none" }}`,
		`{{-   end }}`,
		`{{-   $installed := get $st "sylva_release" | default (get $data "sylva-units-chart-version" | toString | regexFind "^[1-9][0-9]*[.][0-9]+") | default $branch | default "` + g.Legacy + `" | regexFind "[0-9]+[.][0-9]+" }}`,
		`{{-   if ne $installed "` + target + `" }}`,
		`{{-     $state = printf "%s/1" $installed }}`,
	}...)
	// A pass pending with neither pass key: the pass every command places
	// (planner.UnkeyedOf), or a failure naming why none can be.
	unkeyed := `{{-   else if and (eq (get $st "additional_reconciliation_required") "true") (not (or (get $st "transition_from") (get $st "transition_pass"))) }}`
	switch {
	case g.unkeyed != "":
		lines = append(lines, unkeyed, `{{-     $state = "`+g.unkeyed+`" }}`)
	case g.unkeyedFail != "":
		lines = append(lines, unkeyed, `{{-     fail `+strconv.Quote("sylva-planner's overlay for "+target+": "+g.unkeyedFail)+` }}`)
	}
	lines = append(lines,
		`{{-   else if eq (get $st "additional_reconciliation_required") "true" }}`,
		`{{-     $state = printf "%s/%d" (get $st "transition_from" | regexFind "[0-9]+[.][0-9]+") (get $st "transition_pass" | atoi | add1) }}`,
		`{{-   end }}`)
	// A pass of a source the overlay leaves out fails the render rather
	// than take the final values.
	for _, src := range sortedKeys(g.Uncovered) {
		lines = append(lines,
			`{{-   if hasPrefix "`+src+`/" $state }}`,
			`{{-     fail `+strconv.Quote("sylva-planner's overlay for "+target+" does not cover upgrades from "+src+": "+g.Uncovered[src]+"; generate it with --from "+src+" and a catalog that has it")+` }}`,
			`{{-   end }}`)
	}
	lines = append(lines, missingStatusLines(target)...)
	lines = append(lines, `{{- end }}`, `{{- $passes := dict }}`)
	for _, s := range g.States {
		lines = append(lines, fmt.Sprintf(`{{- $_ := set $passes %s %s }}`, strconv.Quote(s.Name), dictLiteral(s.Values)))
	}
	return append(lines, fmt.Sprintf(`{{- get $passes $state | default %s | toJson }}`, dictLiteral(g.Final)))
}

func dictLiteral(m map[string]string) string {
	var b strings.Builder
	b.WriteString("(dict")
	for _, k := range sortedKeys(m) {
		fmt.Fprintf(&b, " %s %s", strconv.Quote(k), strconv.Quote(m[k]))
	}
	b.WriteString(")")
	return b.String()
}

// passRef is a gotpl expression for one pass value, read from the state.
func passRef(key string) string {
	return `get (.Values._internal.state.` + StateKey + ` | fromJson) "` + key + `"`
}

// missingStatusLines end the status reading of the state template: on
// an upgrade whose status ConfigMap cannot be read, the pass to run
// cannot be told, and the final values could move the cluster several
// minors at once. The render fails, naming the fix, unless the release's
// sylva-units-status Kustomization never applied (the install still in
// progress, which runs the final values). A fresh install (helm install,
// helm template) has no status and takes the final values.
func missingStatusLines(target string) []string {
	msg := "sylva-planner's overlay for " + target + ": this upgrade of release %s in namespace %s cannot read its sylva-units-status ConfigMap, " +
		"so the pass to run cannot be told (the final values could skip a Kubernetes or Longhorn minor); nothing was applied. " +
		"Let the sylva-units-status unit write the ConfigMap back (flux reconcile kustomization " + status.KustomizationName + " -n %s), " +
		"then retry this release (flux reconcile helmrelease %s -n %s --force)"
	return []string{
		`{{- else if .Release.IsUpgrade }}`,
		`{{-   $ks := lookup "kustomize.toolkit.fluxcd.io/v1" "Kustomization" .Release.Namespace "` + status.KustomizationName + `" | default dict }}`,
		`{{-   if or (not $ks) (dig "status" "lastAppliedRevision" "" $ks) }}`,
		`{{-     fail (printf ` + strconv.Quote(msg) + ` .Release.Name .Release.Namespace .Release.Namespace .Release.Name .Release.Namespace) }}`,
		`{{-   end }}`,
	}
}

// k8sVersionTemplate is the overlay's cluster.k8s_version: the full
// version of the pass's minor, or of the cluster's own k8s_version_short
// when that is older. A cluster whose values choose an older minor than
// the pass (a workload cluster pinned inside the release's window) keeps
// its choice: the overlay never moves it past what its own values ask,
// and so never more than the chart alone would.
func (g *Generated) k8sVersionTemplate() string {
	return strings.Join([]string{
		`{{- $short := ` + passRef(KeyK8sVersionShort) + ` }}`,
		`{{- $own := .Values.k8s_version_short | default "" | toString }}`,
		`{{- $minor := "^[0-9][0-9]*[.][0-9][0-9]*$" }}`,
		`{{- if and (regexMatch $minor $own) (regexMatch $minor $short) }}`,
		`{{-   $o := splitList "." $own }}`,
		`{{-   $p := splitList "." $short }}`,
		`{{-   if or (lt (index $o 0 | atoi) (index $p 0 | atoi)) (and (eq (index $o 0) (index $p 0)) (lt (index $o 1 | atoi) (index $p 1 | atoi))) }}`,
		`{{-     $short = $own }}`,
		`{{-   end }}`,
		`{{- end }}`,
		`{{- .Values._internal.k8s_version_map | dig $short "" | required (printf "no k8s version defined for %s (_internal.state.` + StateKey + ` with k8s_version_short %s: a cluster whose minor is outside the window of this chart steps into it on the chart of the release it runs first)" $short $own) }}`,
	}, "\n")
}

// Values returns the overlay as a values map (what `helm -f` reads).
func (g *Generated) Values() map[string]any {
	info := map[string]any{}
	for _, k := range statusKeys {
		info[k] = inertRef(k)
	}
	out := map[string]any{
		"_internal":   map[string]any{"state": map[string]any{StateKey: g.stateTemplate()}},
		"cluster":     map[string]any{"k8s_version": k8sInertTemplate(g.k8sVersionTemplate())},
		StatusInfoKey: info,
	}
	if g.Longhorn {
		units := map[string]any{}
		for _, u := range []string{"longhorn", "longhorn-crd"} {
			units[u] = map[string]any{"helmrelease_spec": map[string]any{"chart": map[string]any{"spec": map[string]any{"version": g.longhornTemplate()}}}}
		}
		out["units"] = units
	}
	return out
}
