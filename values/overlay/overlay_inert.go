package overlay

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"gitlab.com/sylva-projects/sylva-planner/catalog"
	"gitlab.com/sylva-projects/sylva-planner/semver"
	"gitlab.com/sylva-projects/sylva-planner/yamldoc"
)

// The overlay is inert outside the chart of its own release: values live
// in the environment's repository and outlive the chart they were written
// for, so an overlay forgotten there, or wired before the chart moves to
// its release, must change nothing the chart would render without it.

// KeyInert is the key of the pass values that marks the overlay inert: it
// holds the release (or the Kubernetes minor) of the chart it is rendered
// in, which is not the overlay's.
const KeyInert = "inert"

// skipSentinel is what sylva-units' "set-only-if" gives for an item to
// leave out; the chart's interpretation drops a map entry rendering to it
// (every ref of the bundle).
const skipSentinel = "skip-as-set-only-if-result-was-false"

// chartK8sVersion is the chart's own cluster.k8s_version, the same text on
// every ref of the bundle (1.0.0 to main): what the overlay renders when
// inert.
const chartK8sVersion = `{{- .Values._internal.k8s_version_map | dig .Values.k8s_version_short "" | required (printf "no k8s version defined for %s" .Values.k8s_version_short) }}`

// identifyCharts fills Charts and ForeignLonghorn from the catalog, and
// the target's entry from the chart when there is one.
func (g *Generated) identifyCharts(cat *catalog.Catalog, rel *catalog.Release, ch *TargetChart) {
	target := rel.Release.Short()
	g.Charts = map[string]string{}
	for i := range cat.Releases {
		r := &cat.Releases[i]
		if newest, ok := r.NewestKubernetes(); ok && r.Release.Short() != target {
			g.Charts[newest.Short()] = r.Release.Short()
		}
	}
	if newest, ok := rel.NewestKubernetes(); ok {
		g.Charts[newest.Short()] = target
	}
	if ch != nil {
		if newest := NewestMappedMinor(ch.Values); newest != "" {
			g.Charts[newest] = target
		}
	}
	if !g.Longhorn {
		return
	}
	g.ForeignLonghorn = map[string]string{}
	for i := range cat.Releases {
		r := &cat.Releases[i]
		if r.Release.Short() == target {
			continue
		}
		if c, ok := r.Component("longhorn"); ok {
			if v, ok := cat.ChartVersion("longhorn", c.Version); ok {
				g.ForeignLonghorn[r.Release.Short()] = v
			}
		}
	}
}

// NewestMappedMinor is the newest Kubernetes minor ("1.NN") the
// _internal.k8s_version_map of values maps, "" when it maps none: how a
// chart taken from Git, whose version names no release, is told.
func NewestMappedMinor(values map[string]any) string {
	m, _ := yamldoc.Dig(values, "_internal", "k8s_version_map")
	mm, _ := m.(map[string]any)
	return newestMinor(sortedKeys(mm))
}

// newestMinor is the newest of Kubernetes minors written "1.NN" ("" when
// none parses).
func newestMinor(minors []string) string {
	var best semver.Version
	out := ""
	for _, m := range minors {
		v, err := semver.Parse(m)
		if err != nil {
			continue
		}
		if out == "" || v.CompareMinor(best) > 0 {
			best, out = v, v.Short()
		}
	}
	return out
}

// chartReleaseLines are the gotpl lines of the state template that name
// the release of the chart rendering the overlay, in $chartRelease: the
// chart's own sylva_release value when it sets one (a plain string); else
// the chart's version when it is a release's (a chart published for a
// tag: 1.3.10 → 1.3); else, for a chart taken from Git (0.0.0-git), the
// release whose chart maps the same newest Kubernetes minor in
// _internal.k8s_version_map ("Kubernetes 1.NN" when no release of the
// catalog does).
func (g *Generated) chartReleaseLines() []string {
	return []string{
		`{{- $chartRelease := "" }}`,
		`{{- $own := get .Values "sylva_release" }}`,
		`{{- if and $own (not (toString $own | contains "{{")) }}`,
		`{{-   $chartRelease = toString $own | regexFind "[0-9]+[.][0-9]+" }}`,
		`{{- end }}`,
		`{{- if not $chartRelease }}`,
		`{{-   $chartRelease = .Chart.Version | toString | regexFind "^[1-9][0-9]*[.][0-9]+" }}`,
		`{{- end }}`,
		`{{- if not $chartRelease }}`,
		`{{-   $newest := "" }}`,
		`{{-   $newestMinor := -1 }}`,
		`{{-   range $k, $_ := get .Values._internal "k8s_version_map" | default dict }}`,
		`{{-     $m := toString $k | regexFind "[0-9]+$" | atoi }}`,
		`{{-     if gt $m $newestMinor }}`,
		`{{-       $newest = toString $k }}`,
		`{{-       $newestMinor = $m }}`,
		`{{-     end }}`,
		`{{-   end }}`,
		`{{-   $chartRelease = get ` + dictLiteral(g.Charts) + ` $newest | default (printf "Kubernetes %s" $newest) }}`,
		`{{- end }}`,
	}
}

var (
	releaseMinor        = regexp.MustCompile(`[0-9]+[.][0-9]+`)
	releaseChartVersion = regexp.MustCompile(`^[1-9][0-9]*[.][0-9]+`)
)

// ChartRelease tells the release of the chart whose default values are
// values and whose version is version, as the overlay tells it in the
// chart (chartReleaseLines): its own sylva_release, else the minor of a
// release's chart version, else the release whose chart maps the same
// newest Kubernetes minor ("Kubernetes 1.NN" when no release of the
// catalog does); how says which of these told it.
func (g *Generated) ChartRelease(values map[string]any, version string) (release, how string) {
	if own, ok := values["sylva_release"].(string); ok && !strings.Contains(own, "{{") {
		if m := releaseMinor.FindString(own); m != "" {
			return m, "its sylva_release value"
		}
	}
	if m := releaseChartVersion.FindString(version); m != "" {
		return m, "its version " + version
	}
	newest := NewestMappedMinor(values)
	if r, ok := g.Charts[newest]; ok {
		return r, "its newest Kubernetes, " + newest
	}
	return "Kubernetes " + newest, "its newest Kubernetes"
}

// inertLines give the pass values of the overlay in the chart of another
// release: the inert marker, and, when the overlay sets Longhorn, the
// Longhorn chart version that chart runs. Helm coalesces the overlay over
// the chart's values before any template runs, so the chart's own version
// cannot be read in the render: the overlay holds the version the
// cluster's longhorn HelmRelease (the unit's, in the release namespace)
// runs, which a cluster running that chart rendered from it; with none
// (helm template, a first install) the catalog's for that release; with
// neither the Longhorn value fails the render, naming the fix. The lookup
// is guarded by .Capabilities.APIVersions, as Helm fails a lookup of a
// kind its cluster does not serve (helm.toolkit.fluxcd.io/v2 from Flux
// 2.3, v2beta2 before).
func (g *Generated) inertLines() []string {
	expr := `(dict "` + KeyInert + `" $chartRelease)`
	if !g.Longhorn {
		return []string{`{{-   ` + expr + ` | toJson }}`}
	}
	expr = `(dict "` + KeyInert + `" $chartRelease "` + KeyLonghornChartVersion + `" ($running | default (get ` + dictLiteral(g.ForeignLonghorn) + ` $chartRelease)))`
	return []string{
		`{{-   $running := "" }}`,
		`{{-   range $v := list "v2" "v2beta2" }}`,
		`{{-     $av := printf "` + fluxHelmGroup + `/%s" $v }}`,
		`{{-     if and (not $running) ($.Capabilities.APIVersions.Has (printf "%s/HelmRelease" $av)) }}`,
		`{{-       $running = lookup $av "HelmRelease" $.Release.Namespace "longhorn" | default dict | dig "spec" "chart" "spec" "version" "" | toString }}`,
		`{{-     end }}`,
		`{{-   end }}`,
		`{{-   ` + expr + ` | toJson }}`,
	}
}

// fluxHelmGroup is the API group of Flux's HelmRelease.
const fluxHelmGroup = "helm.toolkit.fluxcd.io"

// inertCond is the gotpl condition, on the state $st, under which the
// overlay is inert: the chart is another release's (the inert marker), or
// the chart did not interpret _internal.state before the rest (charts
// before spring 2024: the state reaches the other values as its template
// text, whose fromJson holds no pass; every pass sets k8s_version_short).
const inertCond = `(or (hasKey $st "` + KeyInert + `") (not (hasKey $st "` + KeyK8sVersionShort + `")))`

// inertRef is a gotpl string that reads a status key from the state, or
// leaves the entry out when the overlay is inert.
func inertRef(key string) string {
	return `{{- $st := .Values._internal.state.` + StateKey + ` | fromJson }}` +
		`{{- if ` + inertCond + ` }}` + skipSentinel +
		`{{- else }}{{ get $st "` + key + `" }}{{- end }}`
}

// longhornTemplate is Longhorn's chart version of the pass, or of the
// chart rendering the overlay when it is another release's.
func (g *Generated) longhornTemplate() string {
	msg := fmt.Sprintf("the sylva-planner overlay for Sylva %s is in the chart of %%s, whose Longhorn chart version it does not know: remove the overlay from the values", g.To)
	return strings.Join([]string{
		`{{- $st := .Values._internal.state.` + StateKey + ` | fromJson }}`,
		`{{- get $st "` + KeyLonghornChartVersion + `" | required (printf ` + strconv.Quote(msg) + ` (get $st "` + KeyInert + `" | default "a release that does not interpret _internal.state first")) }}`,
	}, "\n")
}

// k8sInertTemplate wraps the overlay's cluster.k8s_version: the chart's
// own expression when the overlay is inert.
func k8sInertTemplate(own string) string {
	return strings.Join([]string{
		`{{- $st := .Values._internal.state.` + StateKey + ` | fromJson }}`,
		`{{- if ` + inertCond + ` }}`,
		chartK8sVersion,
		`{{- else }}`,
		own,
		`{{- end }}`,
	}, "\n")
}

// chartsList names the chart fingerprints for the header: "1.31 → 1.4, …"
// in minor order.
func chartsList(charts map[string]string) string {
	keys := sortedKeys(charts)
	var parts []string
	for _, k := range keys {
		parts = append(parts, k+" → "+charts[k])
	}
	return strings.Join(orNone(parts), ", ")
}

func longhornInertNote(g *Generated) string {
	if !g.Longhorn {
		return ""
	}
	known := sortedKeys(g.ForeignLonghorn)
	return fmt.Sprintf(" and the Longhorn chart version the cluster's longhorn HelmRelease runs, or, when none runs, the catalog's for that release (known for %s; in the chart of any other release the render fails, asking to remove the overlay)", strings.Join(orNone(known), ", "))
}
