package values

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"gitlab.com/sylva-projects/sylva-planner/catalog"
	"gitlab.com/sylva-projects/sylva-planner/planner"
	"gitlab.com/sylva-projects/sylva-planner/skew"
)

// Helper value names, which are also the keys the sylva-units-status unit
// copies into the status ConfigMap (see docs/values.md).
const (
	KeySylvaRelease                     = "sylva_release"
	KeyTransitionFromN2                 = "transition_from_n-2"
	KeyK8sVersionShort                  = "k8s_version_short"
	KeyLonghornVersion                  = "longhorn_version"
	KeyMachineDeploymentsPaused         = "machine_deployments_paused"
	KeyAdditionalReconciliationRequired = "additional_reconciliation_required"
	// KeyTransitionFrom is the release a multi-pass transition started
	// from; the status ConfigMap keeps it between passes.
	KeyTransitionFrom = "transition_from"
	// KeyTransitionPass is the number (from 1) of the pass of the current
	// hop that wrote the status.
	KeyTransitionPass = "transition_pass"
)

// keyOrder is the order of generated values; keys the plan adds later come
// after these, sorted.
var keyOrder = []string{
	KeySylvaRelease, KeyTransitionFromN2, KeyK8sVersionShort, KeyLonghornVersion,
	KeyMachineDeploymentsPaused, KeyAdditionalReconciliationRequired,
	KeyTransitionFrom, KeyTransitionPass,
}

// statusKeys are the helper values the sylva-units-status unit records in
// the status ConfigMap after a pass.
var statusKeys = []string{KeySylvaRelease, KeyAdditionalReconciliationRequired, KeyTransitionFrom, KeyTransitionPass}

// LegacyRelease is the newest release whose status ConfigMap has no
// sylva_release key: a ConfigMap without it was written by this release
// (or an older one).
const LegacyRelease = "1.4"

// Generated is the values fragment that makes the sylva-units chart of a
// release run the passes of every supported upgrade into it.
type Generated struct {
	// From and To are the plan the fragment was asked for.
	From, To       string
	CatalogVersion string
	// Sources are the releases the fragment upgrades from, sorted.
	Sources []string
	// Entries are the values in output order.
	Entries []Entry
}

// Entry is one helper value: a constant, or a gotpl string.
type Entry struct {
	Key string
	// Value is a string, or a bool for a constant boolean value.
	Value any
}

// passState names a pass: "<source minor>/<pass number within the hop>".
func passState(source string, pass int) string { return source + "/" + strconv.Itoa(pass) }

// Generate computes the helper values for the last hop of the plan of in
// (the chart of in.To). The values handle every supported source of in.To
// (each computed with planner.Compute and the options of in), a fresh
// install, and a settled cluster; they read the status ConfigMap with
// `lookup` and compare release minors as strings, never as booleans or
// with semverCompare.
func Generate(in planner.Input) (*Generated, error) {
	if in.Catalog == nil {
		return nil, fmt.Errorf("generate values: no catalog")
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
	table := map[string]map[string]string{} // key → state → value
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
			for k, v := range vals {
				if table[k] == nil {
					table[k] = map[string]string{}
				}
				table[k][passState(src, pass.HopPass)] = v
			}
			if pass.HopPass == pass.HopPasses && (final == nil || src == hopSource(plan)) {
				final = vals
			}
		}
	}
	if final == nil {
		final = settledValues(rel)
	}
	// A fresh install or a settled cluster records no transition.
	final[KeyTransitionFrom], final[KeyTransitionPass] = "", ""
	g := &Generated{
		From: in.From.String(), To: in.To.String(), CatalogVersion: in.Catalog.Version,
		Sources: sortedKeys(sources),
	}
	for _, k := range orderedKeys(table, final) {
		g.Entries = append(g.Entries, Entry{Key: k, Value: entryValue(k, target, table[k], final[k])})
	}
	return g, nil
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

// passValues returns the plan's values of a pass as the strings a
// rendered gotpl value would give, by value name.
func passValues(p planner.Pass) (map[string]string, error) {
	return flatten(p.Values)
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
		KeyMachineDeploymentsPaused:         "false",
		KeyAdditionalReconciliationRequired: "false",
	}
	if c, ok := rel.Component("longhorn"); ok {
		v[KeyLonghornVersion] = c.Version.String()
	}
	return v
}

func orderedKeys(table map[string]map[string]string, final map[string]string) []string {
	seen := map[string]bool{}
	for k := range table {
		seen[k] = true
	}
	for k := range final {
		seen[k] = true
	}
	var out []string
	for _, k := range keyOrder {
		if seen[k] {
			out = append(out, k)
			delete(seen, k)
		}
	}
	return append(out, sortedKeys(seen)...)
}

// boolKeys are helper values the chart uses as booleans.
var boolKeys = map[string]bool{
	KeyTransitionFromN2: true, KeyMachineDeploymentsPaused: true, KeyAdditionalReconciliationRequired: true,
}

// entryValue is a constant when every state agrees with the final value,
// else the gotpl string choosing among them.
func entryValue(key, target string, states map[string]string, final string) any {
	constant := true
	for _, v := range states {
		if v != final {
			constant = false
		}
	}
	if constant {
		if boolKeys[key] && (final == "true" || final == "false") {
			return final == "true"
		}
		return final
	}
	return stateTemplate(target, states, final)
}

// stateTemplate is the gotpl string for one helper value. Every value
// repeats the same prelude, which works out the pass state from the status
// ConfigMap alone, so no value depends on another value or on the order
// in which the chart renders them:
//
//   - no ConfigMap: a fresh install, final values;
//   - a ConfigMap whose release minor is not the target's: the first pass
//     from that release (no sylva_release key means LegacyRelease; a
//     pre-release or patch version counts as its minor; a branch name or a
//     development version matches nothing and gets the final values);
//   - the target's minor with additional_reconciliation_required "true":
//     the pass after transition_pass of the transition from
//     transition_from;
//   - otherwise the cluster is settled: final values.
func stateTemplate(target string, states map[string]string, final string) string {
	var b strings.Builder
	b.WriteString(prelude(target))
	b.WriteString(`{{- get (dict`)
	for _, s := range sortedKeys(states) {
		fmt.Fprintf(&b, " %s %s", strconv.Quote(s), strconv.Quote(states[s]))
	}
	fmt.Fprintf(&b, ") $state | default %s }}", strconv.Quote(final))
	return b.String()
}

func prelude(target string) string {
	return strings.Join([]string{
		`{{- $status := lookup "v1" "ConfigMap" .Release.Namespace "sylva-units-status" | default dict }}`,
		`{{- $data := get $status "data" | default dict }}`,
		`{{- $state := "" }}`,
		`{{- if $status }}`,
		`{{-   $installed := get $data "sylva_release" | default "` + LegacyRelease + `" | toString | regexFind "[0-9]+[.][0-9]+" }}`,
		`{{-   if ne $installed "` + target + `" }}`,
		`{{-     $state = printf "%s/1" $installed }}`,
		`{{-   else if eq (get $data "additional_reconciliation_required" | toString) "true" }}`,
		`{{-     $state = printf "%s/%d" (get $data "transition_from" | toString | regexFind "[0-9]+[.][0-9]+") (get $data "transition_pass" | toString | atoi | add1) }}`,
		`{{-   end }}`,
		`{{- end }}`,
		``,
	}, "\n")
}

// Values returns the fragment as a values map (what `helm -f` reads).
func (g *Generated) Values() map[string]any {
	m := make(map[string]any, len(g.Entries))
	for _, e := range g.Entries {
		m[e.Key] = e.Value
	}
	return m
}

// WriteYAML writes the fragment with a header comment naming the plan.
// Gotpl strings are YAML literal blocks, one action per line.
func (g *Generated) WriteYAML(w io.Writer) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# Helper values for the sylva-units chart of Sylva %s, generated by sylva-planner\n", g.To)
	fmt.Fprintf(&b, "# plan: %s → %s; catalog %s; upgrades from: %s; also a fresh install.\n", g.From, g.To, g.CatalogVersion, strings.Join(orNone(g.Sources), ", "))
	b.WriteString("# The status ConfigMap must record sylva_release, additional_reconciliation_required,\n")
	b.WriteString("# transition_from and transition_pass from these values (see docs/values.md).\n")
	for _, e := range g.Entries {
		b.WriteString(yamlKey(e.Key))
		b.WriteString(":")
		switch v := e.Value.(type) {
		case bool:
			fmt.Fprintf(&b, " %t\n", v)
		case string:
			if !strings.Contains(v, "\n") {
				fmt.Fprintf(&b, " %s\n", strconv.Quote(v))
				continue
			}
			b.WriteString(" |-\n")
			for _, line := range strings.Split(v, "\n") {
				b.WriteString("  " + line + "\n")
			}
		}
	}
	_, err := w.Write(b.Bytes())
	return err
}

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

// WriteJSON writes the fragment as one JSON object (keys sorted).
func (g *Generated) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(g.Values()); err != nil {
		return fmt.Errorf("write values: %w", err)
	}
	return nil
}
