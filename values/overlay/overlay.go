package overlay

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"gitlab.com/sylva-projects/sylva-planner/catalog"
	"gitlab.com/sylva-projects/sylva-planner/planner"
	"gitlab.com/sylva-projects/sylva-planner/semver"
	"gitlab.com/sylva-projects/sylva-planner/yamldoc"
)

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
	// Uncovered are the supported sources whose passes the overlay leaves
	// out, with why (a Longhorn chart version the catalog lacks): a status
	// naming one fails the render.
	Uncovered map[string]string
	// Hops are the overlays of the plan's earlier hops that take several
	// passes, by route order: in the chart of such a hop's release the
	// overlay runs that hop's passes, as the overlay generated for it
	// alone would.
	Hops []*Generated

	// source is the plan's source of the last hop; isHop is set on the
	// overlay of an earlier hop.
	source string
	isHop  bool
	// unkeyed is the pass state a pending pass is read as when the status
	// records no transition_from and transition_pass (planner.UnkeyedOf),
	// "" when none is; unkeyedFail, when several could be, why the render
	// fails then.
	unkeyed, unkeyedFail string
}

// addHops adds the overlay of every earlier hop of plan that takes
// several passes (a single-pass hop is the chart's own upgrade: the
// overlay leaves that chart as it is), each generated for in.From → the
// hop's release.
func (g *Generated) addHops(in planner.Input, plan *planner.Plan) error {
	count := map[string]int{}
	for _, p := range plan.Passes {
		count[p.Release]++
	}
	if len(plan.Route) < 3 {
		return nil
	}
	for _, r := range plan.Route[1 : len(plan.Route)-1] {
		if count[r] < 2 {
			continue
		}
		hin := in
		hin.To = semver.MustParse(r)
		h, err := generateFor(hin, nil, nil, false)
		if err != nil {
			return fmt.Errorf("generate values for the hop to %s: %w", r, err)
		}
		g.Hops = append(g.Hops, h)
		g.Notes = append(g.Notes, fmt.Sprintf("In the chart of %s, the overlay runs the hop to %s (upgrades from: %s) as `values generate --to %s` would, so that the route's passes into %s step through every Kubernetes and Longhorn minor.",
			h.To, h.To, strings.Join(orNone(h.Sources), ", "), h.To, h.To))
	}
	return nil
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
	return generateFor(in, nil, ch, true)
}

// GenerateFromPlan is GenerateFor with the plan of in already computed
// (planner.Compute(in)): it is not computed again, nor the plan of a
// source whose input is in's.
func GenerateFromPlan(in planner.Input, plan *planner.Plan, ch *TargetChart) (*Generated, error) {
	return generateFor(in, plan, ch, true)
}

// generateFor is GenerateFor; with hops, the overlay also runs every
// earlier hop of the plan that takes several passes, in the chart of that
// hop's release (Hops).
func generateFor(in planner.Input, plan *planner.Plan, ch *TargetChart, hops bool) (*Generated, error) {
	rel, err := targetRelease(in)
	if err != nil {
		return nil, err
	}
	if plan == nil {
		if plan, err = planner.Compute(in); err != nil {
			return nil, fmt.Errorf("generate values for %s → %s: %w", in.From, in.To, err)
		}
	}
	sources := sourcesOf(rel, plan)
	states, direct, final, err := passStates(in, plan, rel, sources)
	if err != nil {
		return nil, err
	}
	g := &Generated{
		From: in.From.String(), To: in.To.String(), CatalogVersion: in.Catalog.Version,
		Sources: sortedKeys(sources), Legacy: legacyRelease(in, plan, rel), Final: settled(final, rel),
	}
	for _, name := range sortedKeys(states) {
		g.States = append(g.States, PassState{Name: name, Values: states[name]})
	}
	g.readUnkeyed(in, rel, states, direct)
	if ch != nil {
		g.Chart = ch.Name
		if err := g.checkChart(ch); err != nil {
			return nil, err
		}
	}
	g.source, g.isHop = HopSource(plan), !hops
	if hops {
		if err := g.addHops(in, plan); err != nil {
			return nil, err
		}
	}
	if err := g.setLonghorn(in.Catalog, rel, ch, HopSource(plan)); err != nil {
		return nil, err
	}
	g.identifyCharts(in.Catalog, rel, ch)
	g.noteWorkers(rel)
	return g, nil
}

// targetRelease is the catalog's release of in.To, or why values cannot
// be generated for it.
func targetRelease(in planner.Input) (*catalog.Release, error) {
	if in.Catalog == nil {
		return nil, errors.New("generate values: no catalog")
	}
	rel, ok := in.Catalog.Release(in.To.MinorOnly())
	switch {
	case !ok && in.Catalog.IsPastNewest(in.To):
		return nil, fmt.Errorf("generate values: %w", in.Catalog.RefusePastNewest("--to", in.To, "values generate needs its Kubernetes minors and Longhorn versions"))
	case !ok:
		return nil, fmt.Errorf("generate values: --to: %s; give one of them, or a newer catalog with --catalog", in.Catalog.Unknown(in.To))
	}
	return rel, nil
}

// sourcesOf are the releases the overlay serves: the target's upgrade
// sources, and the source of the hop the plan is in.
func sourcesOf(rel *catalog.Release, plan *planner.Plan) map[string]bool {
	sources := map[string]bool{}
	for _, s := range rel.UpgradeFrom {
		sources[s.Short()] = true
	}
	if hs := HopSource(plan); hs != "" && hs != rel.Release.Short() {
		sources[hs] = true
	}
	return sources
}

// passStates are the values of each pass state of the last hop from each
// source (by state name), the plan of each source (by source), and the
// values of the last pass of the plan's own hop (or of any source's, nil
// when none has a pass).
func passStates(in planner.Input, plan *planner.Plan, rel *catalog.Release, sources map[string]bool) (states map[string]map[string]string, direct map[string]*planner.Plan, final map[string]string, err error) {
	states = map[string]map[string]string{}
	direct = map[string]*planner.Plan{}
	target := rel.Release.Short()
	for _, src := range sortedKeys(sources) {
		sin := in
		sin.From, err = semver.Parse(src)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("generate values: source %q: %w", src, err)
		}
		if src == HopSource(plan) && in.From.Short() == src {
			sin.From = in.From
		}
		if in.Cluster == planner.ClusterWorkload {
			sin.Kubernetes = sourceMinor(in, plan, src)
		}
		p := plan
		if !sameInput(sin, in) || len(plan.Route) != 2 {
			if p, err = planner.Compute(sin); err != nil {
				return nil, nil, nil, fmt.Errorf("generate values for %s → %s: %w", src, target, err)
			}
		}
		direct[src] = p
		for _, pass := range LastHop(p) {
			vals, err := passValues(pass)
			if err != nil {
				return nil, nil, nil, err
			}
			vals[KeyTransitionFrom] = src
			vals[KeyTransitionPass] = strconv.Itoa(pass.HopPass)
			states[passState(src, pass.HopPass)] = vals
			if pass.HopPass == pass.HopPasses && (final == nil || src == HopSource(plan)) {
				final = clone(vals)
			}
		}
	}
	return states, direct, final, nil
}

// settled are the values of a fresh install or a settled cluster: those of
// the last pass (final; the release's settled values without one), with
// no transition recorded and the workers not held.
func settled(final map[string]string, rel *catalog.Release) map[string]string {
	if final == nil {
		final = settledValues(rel)
	}
	final[KeyTransitionFrom], final[KeyTransitionPass] = "", ""
	final[KeyTransitionFromN2], final[KeyAdditionalReconciliationRequired] = "false", "false"
	if rel.HoldsWorkers() {
		final[KeyMachineDeploymentsPaused] = "false"
	}
	return final
}

// legacyRelease is the release a status naming no release was written by:
// LegacyRelease or older; for a target at or below it, the plan's own
// source.
func legacyRelease(in planner.Input, plan *planner.Plan, rel *catalog.Release) string {
	if rel.Release.CompareMinor(semver.MustParse(LegacyRelease)) > 0 {
		return LegacyRelease
	}
	if hs := HopSource(plan); hs != "" {
		return hs
	}
	return in.From.Short()
}

// setLonghorn wires Longhorn's chart version into the overlay (forced when
// a hop sets it) and, once the overlay sets it, into every hop: every state
// the longhorn units read carries a chart version.
func (g *Generated) setLonghorn(cat *catalog.Catalog, rel *catalog.Release, ch *TargetChart, source string) error {
	force := slices.ContainsFunc(g.Hops, func(h *Generated) bool { return h.Longhorn })
	if err := g.wireLonghorn(cat, rel, ch, source, force); err != nil {
		return err
	}
	for _, h := range g.Hops {
		if g.Longhorn && !h.Longhorn {
			hrel, _ := cat.Release(semver.MustParse(h.To).MinorOnly())
			if err := h.wireLonghorn(cat, hrel, nil, h.source, true); err != nil {
				return fmt.Errorf("generate values for the hop to %s (the overlay sets Longhorn's chart version in every chart, for the passes into %s): %w", h.To, g.To, err)
			}
		}
	}
	return nil
}

// noteWorkers says, for a chart that does not hold the MachineDeployments
// back, that the workers follow every change of Kubernetes version.
func (g *Generated) noteWorkers(rel *catalog.Release) {
	if rel.HoldsWorkers() {
		return
	}
	hold := "unknown, assumed absent"
	if c := rel.Capabilities; c != nil && c.HoldWorkers != nil {
		hold = "false"
	}
	g.Notes = append(g.Notes, fmt.Sprintf("MachineDeployments: the %s chart does not hold them back (catalog capability hold_workers: %s), so the overlay sets no "+
		"machine_deployments_paused and the workers follow cluster.k8s_version: they roll on every pass that changes it, as the plan counts.", rel.Release.Short(), hold))
}

// readUnkeyed sets how the overlay reads a status of its release that asks
// for a further pass and records no transition_from and transition_pass
// (a transition the chart ran itself): as the pass planner.UnkeyedOf
// places, as every command places it, or, when several could be pending,
// by failing the render, naming them and the fix. A note says which.
func (g *Generated) readUnkeyed(in planner.Input, rel *catalog.Release, states map[string]map[string]string, direct map[string]*planner.Plan) {
	target := rel.Release.Short()
	var u planner.Unkeyed
	if plain := (planner.Input{Catalog: in.Catalog, From: in.From, To: in.To, Provider: in.Provider, AsOf: in.AsOf, FromSource: in.FromSource, ToolVersion: in.ToolVersion}); sameInput(plain, in) {
		// The plans of the sources were computed as UnkeyedOf computes
		// them: they are not computed again.
		u = planner.UnkeyedOfPlans(in, rel.Release, direct)
	} else {
		u = planner.UnkeyedOf(in, rel.Release)
	}
	switch name := passState(u.From.Short(), 2); {
	case !u.From.IsZero() && states[name] != nil:
		g.unkeyed = name
		g.Notes = append(g.Notes, fmt.Sprintf("A status of %s that asks for a further pass but records no transition_from/transition_pass (a transition the chart ran itself) is read as pass 2 of the hop from %s, the only hop into %s that takes a further pass, as sylva-planner status and plan read it.", target, u.From.Short(), target))
	case u.Ambiguous:
		g.unkeyedFail = fmt.Sprintf("the sylva-units-status ConfigMap asks for a further pass of the hop to %s but records no transition_from/transition_pass, and %s: the transition in flight was started without this overlay, which cannot tell its next pass; remove the overlay from the values and let that transition finish, then apply the overlay again for the next one", target, u.Why)
		g.Notes = append(g.Notes, fmt.Sprintf("A status of %s that asks for a further pass but records no transition_from/transition_pass fails the render, naming the fix: %s.", target, u.Why))
	}
}

// wireLonghorn decides whether the overlay sets Longhorn's chart version
// and fills longhorn_chart_version in every state. A chart version the
// catalog lacks is an error when the plan's own passes (from source) or
// the final values need it; the passes of another supported source that
// need one are left out, and a status from that source fails the render
// (Uncovered). force wires Longhorn even when no pass moves it (an
// earlier hop's does).
func (g *Generated) wireLonghorn(cat *catalog.Catalog, rel *catalog.Release, ch *TargetChart, source string, force bool) error {
	own := g.Final[KeyLonghornVersion]
	if !g.movesLonghorn(own, force) {
		return nil
	}
	missing, needs, err := g.fillLonghornCharts(longhornCharts{cat: cat, ch: ch, own: own}, source)
	if err != nil {
		return err
	}
	if len(missing) == 0 {
		g.dropUncovered()
		return nil
	}
	return g.longhornChartsMissing(rel, own, missing, needs)
}

// movesLonghorn reports whether the overlay wires Longhorn: forced, or a
// state sets a Longhorn version other than the final values' own.
func (g *Generated) movesLonghorn(own string, force bool) bool {
	g.Longhorn = g.Longhorn || force
	for _, s := range g.States {
		if v := s.Values[KeyLonghornVersion]; v != "" && v != own {
			g.Longhorn = true
		}
	}
	return g.Longhorn
}

// longhornCharts finds Longhorn's chart version of a Longhorn version:
// the target chart's own for the final values' version (own), when the
// chart is given, else the catalog's.
type longhornCharts struct {
	cat *catalog.Catalog
	ch  *TargetChart
	own string
}

// of is Longhorn's chart version of v, "" when unknown.
func (l longhornCharts) of(v string) (string, error) {
	if l.ch != nil && v == l.own {
		if s, ok := yamldoc.Dig(l.ch.Values, LonghornVersionPath("longhorn")...); ok {
			if str, ok := s.(string); ok && str != "" && !isTemplate(str) {
				return str, nil
			}
		}
	}
	ver, err := semver.Parse(v)
	if err != nil {
		return "", fmt.Errorf("generate values: Longhorn version %q: %w", v, err)
	}
	c, _ := l.cat.ChartVersion("longhorn", ver)
	return c, nil
}

// fillLonghornCharts sets longhorn_chart_version in every state and the
// final values. It returns every Longhorn version whose chart is unknown
// where the plan's own passes (from source) or the final values need it,
// with the states that set it; a state of another source that needs one
// marks that source Uncovered instead.
func (g *Generated) fillLonghornCharts(charts longhornCharts, source string) ([]string, map[string][]string, error) {
	var missing []string
	needs := map[string][]string{}
	for _, s := range append(slices.Clone(g.States), PassState{Name: "final", Values: g.Final}) {
		v := s.Values[KeyLonghornVersion]
		c, err := charts.of(v)
		if err != nil {
			return nil, nil, err
		}
		if c != "" {
			s.Values[KeyLonghornChartVersion] = c
			continue
		}
		if src, pass, ok := strings.Cut(s.Name, "/"); ok && src != source {
			g.uncover(src, fmt.Sprintf("the catalog has no Longhorn chart version for Longhorn %s (pass %s from %s)", v, pass, src))
			continue
		}
		if _, seen := needs[v]; !seen {
			missing = append(missing, v)
		}
		needs[v] = append(needs[v], stateName(s.Name))
	}
	return missing, needs, nil
}

// uncover marks the passes from src as not covered, for why (the first
// reason given is kept).
func (g *Generated) uncover(src, why string) {
	if g.Uncovered == nil {
		g.Uncovered = map[string]string{}
	}
	if _, seen := g.Uncovered[src]; !seen {
		g.Uncovered[src] = why
	}
}

// longhornChartsMissing is the error naming every Longhorn version whose
// chart version is unknown, the states that need it, and the fix: a
// catalog of one's own, or the target's chart for its own version.
func (g *Generated) longhornChartsMissing(rel *catalog.Release, own string, missing []string, needs map[string][]string) error {
	slices.SortFunc(missing, func(a, b string) int { return semver.MustParse(a).Compare(semver.MustParse(b)) })
	parts := make([]string, len(missing))
	for i, v := range missing {
		parts[i] = fmt.Sprintf("Longhorn %s (%s)", v, strings.Join(needs[v], ", "))
	}
	fix := "add chart: to those longhorn entries in a catalog of your own (sylva-planner catalog list -o yaml > catalog.yaml) and pass --catalog catalog.yaml"
	switch {
	case g.isHop:
		// --chart is the chart of the plan's target, not of this hop's
		// release.
	case len(missing) == 1 && missing[0] == own:
		fix = "give the chart of " + rel.Release.Short() + " with --chart DIR, or " + fix
	case slices.Contains(missing, own):
		fix = "give the chart of " + rel.Release.Short() + " with --chart DIR (it carries Longhorn " + own + "'s) and " + strings.Replace(fix, "those longhorn entries", "the other longhorn entries", 1)
	}
	return fmt.Errorf("generate values for %s: %w: the catalog has no Longhorn chart version for %s; %s", g.To, ErrChartVersionUnknown, strings.Join(parts, "; "), fix)
}

// dropUncovered leaves out the states and sources of Uncovered, and says
// so in the Notes.
func (g *Generated) dropUncovered() {
	if len(g.Uncovered) == 0 {
		return
	}
	g.States = slices.DeleteFunc(g.States, func(s PassState) bool {
		src, _, _ := strings.Cut(s.Name, "/")
		_, gone := g.Uncovered[src]
		return gone
	})
	g.Sources = slices.DeleteFunc(g.Sources, func(src string) bool {
		_, gone := g.Uncovered[src]
		return gone
	})
	for _, src := range sortedKeys(g.Uncovered) {
		g.Notes = append(g.Notes, fmt.Sprintf("Upgrades from %s are not covered: %s; a status naming %s fails the render (nothing is applied). "+
			"For them, generate the overlay with --from %s and a catalog that has it.", src, g.Uncovered[src], src, src))
	}
}

// stateName says which pass a state is: "the final values", or "pass 2
// of the hop from 1.5" for the state 1.5/2.
func stateName(name string) string {
	src, pass, ok := strings.Cut(name, "/")
	if !ok {
		return "the final values"
	}
	return "pass " + pass + " of the hop from " + src
}

// LonghornVersionPath is the values path of the Longhorn chart version
// unit deploys, which the overlay sets.
func LonghornVersionPath(unit string) []string {
	return []string{"units", unit, "helmrelease_spec", "chart", "spec", "version"}
}

// checkChart refuses a chart that lacks what the overlay is wired to, or
// that maps no full Kubernetes version for a minor a pass sets.
func (g *Generated) checkChart(ch *TargetChart) error {
	v := ch.Values
	fail := func(format string, args ...any) error {
		return fmt.Errorf("generate values: chart %s: "+format, append([]any{ch.Name}, args...)...)
	}
	kv, _ := yamldoc.Dig(v, "cluster", "k8s_version")
	if _, ok := kv.(string); !ok {
		return fail("no cluster.k8s_version to set the control plane's version; is it a sylva-units chart?")
	}
	if _, ok := yamldoc.Dig(v, StatusInfoKey); !ok {
		return fail("no %s: the status keys cannot reach the sylva-units-status ConfigMap", StatusInfoKey)
	}
	if _, ok := yamldoc.Dig(v, "_internal"); !ok {
		return fail("no _internal values; is it a sylva-units chart?")
	}
	m, _ := yamldoc.Dig(v, "_internal", "k8s_version_map")
	vm, _ := m.(map[string]any)
	for _, s := range append(slices.Clone(g.States), PassState{Name: "a fresh install", Values: g.Final}) {
		minor := s.Values[KeyK8sVersionShort]
		if _, ok := vm[minor]; !ok {
			which := s.Name
			if strings.Contains(which, "/") {
				which = stateName(which)
			}
			return fail("_internal.k8s_version_map has no Kubernetes %s, which %s sets (it maps %s)", minor, which, strings.Join(sortedKeys(vm), ", "))
		}
	}
	return nil
}

// sourceMinor is the minor a workload cluster's control plane runs when
// the last hop of its plan starts from src: where the plan's own passes
// leave it (after the steps on earlier releases), else its minor brought
// into src's window (the nearest minor src maps).
func sourceMinor(in planner.Input, plan *planner.Plan, src string) semver.Version {
	if hop := LastHop(plan); src == HopSource(plan) && len(hop) > 0 {
		if v, err := semver.Parse(hop[0].ControlPlane.From); err == nil {
			return v
		}
	}
	rel, ok := in.Catalog.Release(semver.MustParse(src))
	if !ok {
		return in.Kubernetes
	}
	return planner.NearestInWindow(rel, in.Kubernetes)
}

// sameInput reports whether a and b plan alike but for their source
// release's patch or pre-release part: same releases' minors and options.
func sameInput(a, b planner.Input) bool {
	return a.Catalog == b.Catalog && a.From.Short() == b.From.Short() && a.To.Short() == b.To.Short() &&
		a.Provider == b.Provider && a.Workers.Equal(b.Workers) && a.Cluster == b.Cluster &&
		a.Kubernetes.Equal(b.Kubernetes) && a.KubernetesTo.Equal(b.KubernetesTo) && a.AsOf.Equal(b.AsOf) &&
		a.Progress == nil && b.Progress == nil && a.Observed == nil && b.Observed == nil
}
