package values

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"gitlab.com/sylva-projects/sylva-planner/catalog"
	"gitlab.com/sylva-projects/sylva-planner/envelope"
	"gitlab.com/sylva-projects/sylva-planner/planner"
	"gitlab.com/sylva-projects/sylva-planner/skew"
	"gitlab.com/sylva-projects/sylva-planner/status"
)

// Names of the pass values: the plan's value names (the JSON names of
// planner.Values, which a test ties to these). The ones the status
// ConfigMap keeps between passes are the status package's keys, spelled
// there once (see docs/values.md).
const (
	KeySylvaRelease                     = status.KeySylvaRelease
	KeyTransitionFromN2                 = "transition_from_n-2"
	KeyK8sVersionShort                  = "k8s_version_short"
	KeyLonghornVersion                  = "longhorn_version"
	KeyMachineDeploymentsPaused         = "machine_deployments_paused"
	KeyAdditionalReconciliationRequired = status.KeyAdditionalReconciliationRequired
	// KeyTransitionFrom is the release a multi-pass transition started
	// from; the status ConfigMap keeps it between passes.
	KeyTransitionFrom = status.KeyTransitionFrom
	// KeyTransitionPass is the number (from 1) of the pass of the current
	// hop that wrote the status.
	KeyTransitionPass = status.KeyTransitionPass
	// KeyLonghornChartVersion is the Helm chart version of Longhorn's
	// version (a Rancher chart version such as 105.2.0+up1.8.1).
	KeyLonghornChartVersion = "longhorn_chart_version"
)

// Where the generated values live in the sylva-units values.
const (
	// StateKey is the key, under _internal.state, of the pass values as a
	// JSON object. The chart interprets _internal.state before anything
	// else, so every other value reads it already computed.
	StateKey = "release_transition"
	// StatusInfoKey is the chart's value whose YAML the sylva-units-status
	// Kustomization writes into the status ConfigMap's additional-info.
	StatusInfoKey = "additional_sylva_units_status_info"
	// AdditionalInfo is the status ConfigMap key holding that YAML.
	AdditionalInfo = "additional-info"
)

// statusKeys are the pass values the overlay records in the status
// ConfigMap (through additional-info) for the next pass to read.
var statusKeys = []string{KeySylvaRelease, KeyAdditionalReconciliationRequired, KeyTransitionFrom, KeyTransitionPass}

// LegacyRelease is the newest release whose status ConfigMap has no
// sylva_release key: a ConfigMap without it, written by a development
// chart, was written by this release or an older one.
const LegacyRelease = "1.4"

// ErrChartVersionUnknown is returned by Generate when a pass moves Longhorn
// to a version whose chart version neither the catalog nor the chart gives.
var ErrChartVersionUnknown = errors.New("chart version unknown")

// Generated is the values overlay that makes the sylva-units chart of a
// release run the passes of every supported upgrade into it.
type Generated struct {
	// From and To are the plan the overlay was asked for.
	From, To       string
	CatalogVersion string
	// Sources are the releases the overlay upgrades from, sorted.
	Sources []string
	// Legacy is the release a status ConfigMap is read as when it names
	// none (no sylva_release, no release chart version).
	Legacy string
	// States are the values of each pass, by pass state
	// ("<source>/<pass of the hop>"), sorted by state.
	States []PassState
	// Final are the values of a fresh install and of a settled cluster.
	Final map[string]string
	// Longhorn is true when the overlay sets Longhorn's chart version: a
	// pass moves Longhorn to another version than the release's own.
	Longhorn bool
	// Chart names the chart the overlay was checked against ("" for none).
	Chart string
	// Charts tell the chart of each release by the newest Kubernetes minor
	// its _internal.k8s_version_map maps (a chart taken from Git is
	// versioned 0.0.0-git): minor → release, the target's from the chart
	// given, else from the catalog, the others' from the catalog.
	Charts map[string]string
	// ForeignLonghorn are the Longhorn chart versions of the other
	// releases' charts, by release (only when Longhorn is set): what the
	// overlay leaves Longhorn at in those charts.
	ForeignLonghorn map[string]string
	// Notes say what the overlay cannot do in the chart; the header of
	// WriteYAML prints them.
	Notes []string
}

// PassState is the values of one pass.
type PassState struct {
	// Name is "<source minor>/<pass number within the hop>".
	Name   string
	Values map[string]string
}

// TargetChart is what Generate needs to know of the sylva-units chart the
// overlay is for: its default values (values.yaml).
type TargetChart struct {
	// Name names the chart in the output (a path or a ref).
	Name string
	// Values are the chart's default values.
	Values map[string]any
}

// passState names a pass: "<source minor>/<pass number within the hop>".
func passState(source string, pass int) string { return source + "/" + strconv.Itoa(pass) }

// Generate computes the overlay for the last hop of the plan of in (the
// chart of in.To), without a chart to check it against.
func Generate(in planner.Input) (*Generated, error) { return GenerateFor(in, nil) }

// GenerateFor computes the overlay for the last hop of the plan of in (the
// chart of in.To). The overlay handles every supported source of in.To
// (each computed with planner.Compute and the options of in), a fresh
// install and a settled cluster. It reads the status ConfigMap with
// `lookup` once, in _internal.state, and compares release minors as
// strings, never as booleans or with semverCompare. With a chart, it
// checks that the chart has what the overlay is wired to, and takes
// Longhorn's chart version of the release from it.
func GenerateFor(in planner.Input, ch *TargetChart) (*Generated, error) {
	if in.Catalog == nil {
		return nil, errors.New("generate values: no catalog")
	}
	rel, ok := in.Catalog.Release(in.To.MinorOnly())
	if !ok {
		return nil, fmt.Errorf("generate values: release %s is not in catalog %s", in.To, in.Catalog.Version)
	}
	target := rel.Release.Short()
	plan, err := planner.Compute(in)
	if err != nil {
		return nil, fmt.Errorf("generate values for %s → %s: %w", in.From, in.To, err)
	}
	sources := map[string]bool{}
	for _, s := range rel.UpgradeFrom {
		sources[s.Short()] = true
	}
	if hs := hopSource(plan); hs != "" && hs != target {
		sources[hs] = true
	}
	states := map[string]map[string]string{}
	var final map[string]string
	for _, src := range sortedKeys(sources) {
		sin := in
		sin.From, err = skew.Parse(src)
		if err != nil {
			return nil, fmt.Errorf("generate values: source %q: %w", src, err)
		}
		if src == hopSource(plan) && in.From.Short() == src {
			sin.From = in.From
		}
		p, err := planner.Compute(sin)
		if err != nil {
			return nil, fmt.Errorf("generate values for %s → %s: %w", src, target, err)
		}
		for _, pass := range lastHop(p) {
			vals, err := passValues(pass)
			if err != nil {
				return nil, err
			}
			vals[KeyTransitionFrom] = src
			vals[KeyTransitionPass] = strconv.Itoa(pass.HopPass)
			states[passState(src, pass.HopPass)] = vals
			if pass.HopPass == pass.HopPasses && (final == nil || src == hopSource(plan)) {
				final = clone(vals)
			}
		}
	}
	if final == nil {
		final = settledValues(rel)
	}
	// A fresh install or a settled cluster records no transition.
	final[KeyTransitionFrom], final[KeyTransitionPass] = "", ""
	final[KeyTransitionFromN2], final[KeyAdditionalReconciliationRequired] = "false", "false"
	if rel.HoldsWorkers() {
		final[KeyMachineDeploymentsPaused] = "false"
	}

	g := &Generated{
		From: in.From.String(), To: in.To.String(), CatalogVersion: in.Catalog.Version,
		Sources: sortedKeys(sources), Legacy: LegacyRelease, Final: final,
	}
	// A status naming no release was written by LegacyRelease or older;
	// for a target at or below it, by the plan's own source.
	if rel.Release.CompareMinor(skew.MustParse(LegacyRelease)) <= 0 {
		g.Legacy = in.From.Short()
		if hs := hopSource(plan); hs != "" {
			g.Legacy = hs
		}
	}
	for _, name := range sortedKeys(states) {
		g.States = append(g.States, PassState{Name: name, Values: states[name]})
	}
	if ch != nil {
		g.Chart = ch.Name
		if err := g.checkChart(ch); err != nil {
			return nil, err
		}
	}
	if err := g.wireLonghorn(in.Catalog, rel, ch); err != nil {
		return nil, err
	}
	g.identifyCharts(in.Catalog, rel, ch)
	if !rel.HoldsWorkers() {
		hold := "unknown, assumed absent"
		if c := rel.Capabilities; c != nil && c.HoldWorkers != nil {
			hold = "false"
		}
		g.Notes = append(g.Notes, fmt.Sprintf("MachineDeployments: the %s chart does not hold them back (catalog capability hold_workers: %s), so the overlay sets no "+
			"machine_deployments_paused and the workers follow cluster.k8s_version: they roll on every pass that changes it, as the plan counts.", target, hold))
	}
	return g, nil
}

// wireLonghorn decides whether the overlay sets Longhorn's chart version
// and fills longhorn_chart_version in every state.
func (g *Generated) wireLonghorn(cat *catalog.Catalog, rel *catalog.Release, ch *TargetChart) error {
	own := g.Final[KeyLonghornVersion]
	for _, s := range g.States {
		if v := s.Values[KeyLonghornVersion]; v != "" && v != own {
			g.Longhorn = true
		}
	}
	if !g.Longhorn {
		return nil
	}
	chartOf := func(v string) (string, error) {
		if ch != nil && v == own {
			if s, ok := valueAt(ch.Values, longhornVersionPath("longhorn")); ok {
				if str, ok := s.(string); ok && str != "" && !isTemplate(str) {
					return str, nil
				}
			}
		}
		ver, err := skew.Parse(v)
		if err != nil {
			return "", fmt.Errorf("generate values: Longhorn version %q: %w", v, err)
		}
		if c, ok := cat.ChartVersion("longhorn", ver); ok {
			return c, nil
		}
		fix := "add chart: to its longhorn entry in a catalog of your own (sylva-planner catalog list -o yaml > catalog.yaml) and pass --catalog catalog.yaml"
		if v == own {
			fix = "give the chart of " + rel.Release.Short() + " with --chart DIR, or " + fix
		}
		return "", fmt.Errorf("generate values for %s: %w: the catalog has no Longhorn chart version for Longhorn %s; %s", g.To, ErrChartVersionUnknown, v, fix)
	}
	for _, s := range append(slices.Clone(g.States), PassState{Name: "final", Values: g.Final}) {
		c, err := chartOf(s.Values[KeyLonghornVersion])
		if err != nil {
			return err
		}
		s.Values[KeyLonghornChartVersion] = c
	}
	return nil
}

func longhornVersionPath(unit string) []string {
	return []string{"units", unit, "helmrelease_spec", "chart", "spec", "version"}
}

// checkChart refuses a chart that lacks what the overlay is wired to, or
// that maps no full Kubernetes version for a minor a pass sets.
func (g *Generated) checkChart(ch *TargetChart) error {
	v := ch.Values
	fail := func(format string, args ...any) error {
		return fmt.Errorf("generate values: chart %s: "+format, append([]any{ch.Name}, args...)...)
	}
	kv, _ := valueAt(v, []string{"cluster", "k8s_version"})
	if _, ok := kv.(string); !ok {
		return fail("no cluster.k8s_version to set the control plane's version; is it a sylva-units chart?")
	}
	if _, ok := valueAt(v, []string{StatusInfoKey}); !ok {
		return fail("no %s: the status keys cannot reach the sylva-units-status ConfigMap", StatusInfoKey)
	}
	if _, ok := valueAt(v, []string{"_internal"}); !ok {
		return fail("no _internal values; is it a sylva-units chart?")
	}
	m, _ := valueAt(v, []string{"_internal", "k8s_version_map"})
	vm, _ := m.(map[string]any)
	for _, s := range append(slices.Clone(g.States), PassState{Name: "a fresh install", Values: g.Final}) {
		minor := s.Values[KeyK8sVersionShort]
		if _, ok := vm[minor]; !ok {
			return fail("_internal.k8s_version_map has no Kubernetes %s, which pass %s sets (it maps %s)", minor, s.Name, strings.Join(sortedKeys(vm), ", "))
		}
	}
	return nil
}

// hopSource is the release the last hop of p starts from.
func hopSource(p *planner.Plan) string {
	if len(p.Route) < 2 {
		return ""
	}
	v, err := skew.Parse(p.Route[len(p.Route)-2])
	if err != nil {
		return p.Route[len(p.Route)-2]
	}
	return v.Short()
}

// lastHop returns the passes of p applied by the chart of its target.
func lastHop(p *planner.Plan) []planner.Pass {
	var out []planner.Pass
	for _, pass := range p.Passes {
		if pass.Release == p.To.Release {
			out = append(out, pass)
		}
	}
	return out
}

// finalValues are the helper values the chart of the plan's target must
// end with: those of the last pass of its hop, or the catalog's settled
// values when the plan has no pass on that chart.
func finalValues(p *planner.Plan, cat *catalog.Catalog, to skew.Version) (map[string]string, error) {
	if hop := lastHop(p); len(hop) > 0 {
		return passValues(hop[len(hop)-1])
	}
	if rel, ok := cat.Release(to.MinorOnly()); ok {
		return settledValues(rel), nil
	}
	return map[string]string{}, nil
}

// passValues returns the plan's values of a pass as the strings a
// rendered gotpl value would give, by value name.
func passValues(p planner.Pass) (map[string]string, error) {
	return PassValues(p.Values)
}

// PassValues returns the helper values v as the strings a rendered gotpl
// value gives ("true"/"false" for booleans), by value name; an empty
// Longhorn version is left out.
func PassValues(v planner.Values) (map[string]string, error) {
	return flatten(v)
}

// flatten encodes a struct as JSON and returns its top-level fields as
// strings (bools as "true"/"false").
func flatten(v any) (map[string]string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encode %T: %w", v, err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("decode %T: %w", v, err)
	}
	out := make(map[string]string, len(m))
	for k, x := range m {
		out[k] = scalarString(x)
	}
	return out, nil
}

func scalarString(x any) string {
	switch t := x.(type) {
	case nil:
		return ""
	case string:
		return t
	case bool:
		return strconv.FormatBool(t)
	case float64:
		return strconv.FormatFloat(t, 'f', -1, 64)
	}
	return fmt.Sprint(x)
}

// settledValues are the values of a release nobody upgrades into (no
// supported source): its own versions, no transition.
func settledValues(rel *catalog.Release) map[string]string {
	v := map[string]string{
		KeySylvaRelease:                     rel.Release.Short(),
		KeyTransitionFromN2:                 "false",
		KeyK8sVersionShort:                  rel.Kubernetes.Management.Short(),
		KeyAdditionalReconciliationRequired: "false",
	}
	if rel.HoldsWorkers() {
		v[KeyMachineDeploymentsPaused] = "false"
	}
	if c, ok := rel.Component("longhorn"); ok {
		v[KeyLonghornVersion] = c.Version.String()
	}
	return v
}

// stateTemplate is the gotpl string of _internal.state.release_transition:
// it reads the status ConfigMap once and gives the values of the pass as
// a JSON object.
//
//   - no ConfigMap: a fresh install, final values;
//   - a ConfigMap whose release minor is not the target's: the first pass
//     from that release. The release is sylva_release, else the minor of a
//     release chart version (sylva-units-chart-version), else Legacy; a
//     pre-release or patch version counts as its minor; a branch name or a
//     development version matches nothing and gets the final values;
//   - the target's minor with additional_reconciliation_required "true":
//     the pass after transition_pass of the transition from
//     transition_from;
//   - otherwise the cluster is settled: final values.
//
// The four status keys are read from the ConfigMap's data, else from the
// YAML of its additional-info (where the chart writes them); data wins.
func (g *Generated) stateTemplate() string {
	target := skew.MustParse(g.To).Short()
	lines := g.chartReleaseLines()
	lines = append(lines, `{{- if ne $chartRelease "`+target+`" }}`)
	lines = append(lines, g.inertLines()...)
	lines = append(lines, `{{- else }}`)
	lines = append(lines, []string{
		`{{- $status := lookup "v1" "ConfigMap" .Release.Namespace "` + StatusConfigMap + `" | default dict }}`,
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
		`{{-   $installed := get $st "sylva_release" | default (get $data "sylva-units-chart-version" | toString | regexFind "^[1-9][0-9]*[.][0-9]+") | default "` + g.Legacy + `" | regexFind "[0-9]+[.][0-9]+" }}`,
		`{{-   if ne $installed "` + target + `" }}`,
		`{{-     $state = printf "%s/1" $installed }}`,
		`{{-   else if eq (get $st "additional_reconciliation_required") "true" }}`,
		`{{-     $state = printf "%s/%d" (get $st "transition_from" | regexFind "[0-9]+[.][0-9]+") (get $st "transition_pass" | atoi | add1) }}`,
		`{{-   end }}`,
		`{{- end }}`,
		`{{- $passes := dict }}`,
	}...)
	for _, s := range g.States {
		lines = append(lines, fmt.Sprintf(`{{- $_ := set $passes %s %s }}`, strconv.Quote(s.Name), dictLiteral(s.Values)))
	}
	lines = append(lines, fmt.Sprintf(`{{- get $passes $state | default %s | toJson }}`, dictLiteral(g.Final)), `{{- end }}`)
	return strings.Join(lines, "\n")
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

func (g *Generated) k8sVersionTemplate() string {
	return strings.Join([]string{
		`{{- $short := ` + passRef(KeyK8sVersionShort) + ` }}`,
		`{{- .Values._internal.k8s_version_map | dig $short "" | required (printf "no k8s version defined for %s (_internal.state.` + StateKey + `)" $short) }}`,
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

// WriteYAML writes the overlay with a header comment naming the plan and
// saying what each value is wired to. Gotpl strings are YAML literal
// blocks, one action per line.
func (g *Generated) WriteYAML(w io.Writer) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# Values overlay for the sylva-units chart of Sylva %s, generated by sylva-planner\n", g.To)
	fmt.Fprintf(&b, "# plan: %s → %s; catalog %s; upgrades from: %s; also a fresh install.\n", g.From, g.To, g.CatalogVersion, strings.Join(orNone(g.Sources), ", "))
	if g.Chart != "" {
		fmt.Fprintf(&b, "# checked against the chart %s.\n", g.Chart)
	}
	b.WriteString("# _internal.state." + StateKey + ": the values of the pass, from the sylva-units-status ConfigMap\n")
	b.WriteString("#   (the chart interprets _internal.state first; every other value below reads it).\n")
	b.WriteString("# cluster.k8s_version: the control plane's Kubernetes version of the pass (k8s_version_short is not read).\n")
	if g.Longhorn {
		b.WriteString("# units.longhorn and units.longhorn-crd: Longhorn's chart version of the pass.\n")
	} else {
		b.WriteString("# Longhorn: every pass keeps the chart's own version; not set.\n")
	}
	b.WriteString("# " + StatusInfoKey + ": what the status ConfigMap records in additional-info for the next pass.\n")
	writeComment(&b, fmt.Sprintf("Inert outside Sylva %s: in the chart of another release (its sylva_release value, else its version when it is a release's, else, for a chart taken from Git, the newest Kubernetes minor of its _internal.k8s_version_map: %s) the overlay sets the chart's own cluster.k8s_version%s and records no status key, so that chart renders what it renders without the overlay. Remove the overlay once the status says %s with no further pass.",
		skew.MustParse(g.To).Short(), chartsList(g.Charts), longhornInertNote(g), skew.MustParse(g.To).Short()))
	for _, n := range g.Notes {
		writeComment(&b, n)
	}
	vals := g.Values()
	writeYAMLMap(&b, vals, "")
	_, err := w.Write(b.Bytes())
	return err
}

// writeComment writes text as comment lines of at most about 100 columns.
func writeComment(b *bytes.Buffer, text string) {
	line := "#"
	for _, word := range strings.Fields(text) {
		if len(line)+1+len(word) > 100 && line != "#" {
			b.WriteString(line + "\n")
			line = "#  "
		}
		line += " " + word
	}
	b.WriteString(line + "\n")
}

// keyOrder puts the overlay's top-level keys in the order the chart
// interprets them.
var keyOrder = []string{"_internal", "cluster", "units", StatusInfoKey}

func writeYAMLMap(b *bytes.Buffer, m map[string]any, indent string) {
	keys := sortedKeys(m)
	if indent == "" {
		slices.SortStableFunc(keys, func(x, y string) int { return slices.Index(keyOrder, x) - slices.Index(keyOrder, y) })
	} else if m[KeySylvaRelease] != nil {
		keys = slices.Clone(statusKeys)
	}
	for _, k := range keys {
		b.WriteString(indent + yamlKey(k) + ":")
		switch v := m[k].(type) {
		case map[string]any:
			b.WriteString("\n")
			writeYAMLMap(b, v, indent+"  ")
		case string:
			if !strings.Contains(v, "\n") {
				fmt.Fprintf(b, " %s\n", yamlString(v))
				continue
			}
			b.WriteString(" |-\n")
			for _, line := range strings.Split(v, "\n") {
				b.WriteString(indent + "  " + line + "\n")
			}
		}
	}
}

// yamlString quotes s in single quotes (gotpl uses double quotes).
func yamlString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

func yamlKey(k string) string {
	if plainKey.MatchString(k) {
		return k
	}
	return strconv.Quote(k)
}

func orNone(s []string) []string {
	if len(s) == 0 {
		return []string{"none"}
	}
	return s
}

// WriteJSON writes the overlay as one JSON object (keys sorted).
func (g *Generated) WriteJSON(w io.Writer) error {
	if err := envelope.WriteJSON(w, g.Values()); err != nil {
		return fmt.Errorf("write values: %w", err)
	}
	return nil
}
