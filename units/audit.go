package units

import (
	"cmp"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"gitlab.com/sylva-projects/sylva-planner/cell"
	"gitlab.com/sylva-projects/sylva-planner/envelope"
	"gitlab.com/sylva-projects/sylva-planner/semver"
)

// APIVersion and Kind identify the JSON form of a Report.
const (
	APIVersion = "planner.sylva/v1alpha1"
	KindAudit  = "PruneAudit"
)

// State is what a release manager may do with a unit.
type State string

// States, in the order a report lists them.
const (
	// StatePrunable: no supported upgrade source of the release needs the
	// unit; delete it from the values.
	StatePrunable State = "prunable"
	// StateBlocked: prunable, but units that stay still list it in their
	// depends_on; remove those dependencies first.
	StateBlocked State = "blocked"
	// StateMalformed: the transitional-unit metadata does not parse.
	StateMalformed State = "malformed"
	// StateUntracked: a one_shot unit, or one whose description says it
	// will be removed, that carries no transitional-unit metadata.
	StateUntracked State = "untracked"
	// StateUndecided: the release is unknown, so whether a supported
	// source still needs the unit cannot be decided; PrunableIn still says
	// from which release on it is prunable.
	StateUndecided State = "undecided"
	// StateKeep: a supported upgrade source still needs the unit.
	StateKeep State = "keep"
)

// States lists every state in report order.
var States = []State{StatePrunable, StateBlocked, StateMalformed, StateUntracked, StateUndecided, StateKeep}

func (s State) rank() int { return slices.Index(States, s) }

// AuditInput is what Audit needs.
type AuditInput struct {
	Values *Values
	// Release is the release to audit for. When ReleaseUnknown is set it
	// is ignored: the audit runs without a release, lists untracked units
	// and unresolved entries, and reports transitional units as undecided.
	Release semver.Version
	// ReleaseUnknown says why no release is known (a note of the report,
	// with the fix); "" when Release is set.
	ReleaseUnknown string
	// ReleaseInferred, with ReleaseUnknown, is the release the values
	// most likely are (their Kubernetes version map's), which the command
	// Next suggests names; "" when none is inferred.
	ReleaseInferred string
	// ReleaseFrom says where Release was read when it came from the values
	// ("" when the user named it); the report notes it.
	ReleaseFrom string
	Policy      Policy
	// ToolVersion and CatalogVersion go to the report's metadata.
	ToolVersion    string
	CatalogVersion string
	// AsOf is the day the audit is run for (the report's metadata).
	AsOf time.Time
	// Files are the values files as the user named them (relative paths),
	// used to print the command to run next.
	Files []string
}

// Report is the result of a prune audit. Its JSON form is a public
// contract (docs/prune-audit.md).
type Report struct {
	APIVersion string   `json:"apiVersion"`
	Kind       string   `json:"kind"`
	Metadata   Metadata `json:"metadata"`
	// Release is the audited release, MAJOR.MINOR; "" when unknown.
	Release string `json:"release"`
	// SupportedSources are the releases Release supports upgrading from,
	// oldest first.
	SupportedSources []string `json:"supportedSources"`
	// SourcesAssumed is true when Release is newer than the catalog and
	// SupportedSources follow the n-2 policy by assumption.
	SourcesAssumed bool `json:"sourcesAssumed,omitempty"`
	// Notes explain how the release and its sources were chosen.
	Notes []string `json:"notes,omitempty"`
	// Resolution says how the values' gotpl was handled: literal (read as
	// written) or chart (interpreted as the chart does).
	Resolution Resolution `json:"resolution"`
	// Units lists transitional units and untracked candidates, sorted by
	// state (in the order of States), then name.
	Units []AuditedUnit `json:"units"`
	// Unresolved lists every gotpl entry the units were built from that
	// was not interpreted, sorted by unit and field.
	Unresolved []Unresolved `json:"unresolved,omitempty"`
	// Selection is what the audit read (catalog, chart); the prune-audit
	// commands Next suggests repeat it. The caller sets it.
	Selection envelope.Selection `json:"-"`
	// ShowUnresolved lists each unresolved entry in the table and the
	// Markdown; otherwise they give one line with the count (JSON and YAML
	// always list them). The caller sets it.
	ShowUnresolved bool `json:"-"`

	files []string
	// inferred is the release the values most likely are, when none is
	// known (AuditInput.ReleaseInferred).
	inferred string
}

// Metadata identifies what produced a report, as in every document.
type Metadata = envelope.Metadata

// AuditedUnit is one unit of a report.
type AuditedUnit struct {
	Name string `json:"name"`
	// TransitionalFrom is the transitional-unit value as written ("from-1.4",
	// or what a malformed value reads as); empty for untracked units.
	TransitionalFrom string `json:"transitionalFrom,omitempty"`
	State            State  `json:"state"`
	// PrunableIn is the first release in which the unit is prunable: at or
	// before Release for prunable and blocked units, after it for kept
	// ones. Empty for malformed and untracked units.
	PrunableIn string `json:"prunableIn,omitempty"`
	// Dependents are, for a blocked unit, the units that block pruning;
	// for an untracked, undecided or kept unit, every unit that may be
	// enabled and depends on it. Sorted.
	Dependents []string `json:"dependents,omitempty"`
	// ConditionalDependents is the part of Dependents that depends on the
	// unit only possibly: through a gotpl depends_on value, or while
	// enabled by a template (or a one_shot unit the chart may skip).
	ConditionalDependents []string `json:"conditionalDependents,omitempty"`
	Reason                string   `json:"reason"`
	// SuggestedMetadata is the line to add to an untracked unit.
	SuggestedMetadata string `json:"suggestedMetadata,omitempty"`
}

// Count returns how many units of the report are in state s.
func (r *Report) Count(s State) int {
	n := 0
	for _, u := range r.Units {
		if u.State == s {
			n++
		}
	}
	return n
}

// classify decides the state of the transitional unit name, marked t,
// in the release rel of report r (known: the release is; sources: its
// supported upgrade sources): malformed, undecided, kept, or prunable,
// which makes it a candidate that a unit staying may still block.
func classify(policy Policy, r *Report, name string, t *Transitional, known bool, sources []semver.Version, rel semver.Version) (e AuditedUnit, prunable bool) {
	e = AuditedUnit{Name: name, TransitionalFrom: t.Raw}
	switch {
	case t.Problem != "":
		e.State = StateMalformed
		e.Reason = "transitional-unit " + t.Problem
	case !known:
		e.State = StateUndecided
		e.Reason = fmt.Sprintf("needed by upgrades from %s or older; pass --release to decide", t.From.Short())
		if p, _, ok := firstPrunable(policy, t.From, t.From.AddMinor(1)); ok {
			e.PrunableIn = p.Short()
			e.Reason += fmt.Sprintf(" (prunable from %s on)", e.PrunableIn)
		}
	default:
		x := t.From
		var needing []string
		for _, s := range sources {
			if s.CompareMinor(x) <= 0 {
				needing = append(needing, s.Short())
			}
		}
		if len(needing) > 0 {
			e.State = StateKeep
			e.Reason = fmt.Sprintf("%s still supports upgrades from %s, which need it", r.Release, andList(needing))
			if p, pAssumed, ok := firstPrunable(policy, x, rel.AddMinor(1)); ok {
				e.PrunableIn = p.Short()
				if pAssumed {
					e.Reason += fmt.Sprintf(" (prunable in %s if %s supports upgrades from %s only)", e.PrunableIn, e.PrunableIn, andList(shorts(mustSources(policy, p))))
				}
			}
		} else {
			e.State = StatePrunable
			e.Reason = fmt.Sprintf("needed only by upgrades from %s or older; %s", x.Short(), supportsPhrase(r.Release, r.SupportedSources))
			if p, _, ok := firstPrunable(policy, x, x.AddMinor(1)); ok && p.CompareMinor(rel) <= 0 {
				e.PrunableIn = p.Short()
			} else {
				e.PrunableIn = r.Release
			}
			prunable = true
		}
	}
	return e, prunable
}

// Audit classifies every transitional unit of in.Values for in.Release:
// a unit marked from-X is needed while a supported upgrade source of the
// release is X or older, so it becomes prunable in the first release whose
// oldest supported source is newer than X. The error wraps
// ErrUnknownRelease when the policy cannot place the release.
func Audit(in AuditInput) (*Report, error) {
	known := in.ReleaseUnknown == ""
	rel := in.Release.MinorOnly()
	var sources []semver.Version
	var assumed bool
	if known {
		var err error
		if sources, assumed, err = in.Policy.Sources(rel); err != nil {
			return nil, err
		}
	}
	r := newAuditReport(in, rel, sources, assumed)
	var units []Unit
	if in.Values != nil {
		units = in.Values.Units
		r.Resolution = in.Values.Resolution
		r.Unresolved = slices.Clone(in.Values.Unresolved)
	}
	if n := len(r.Unresolved); n > 0 {
		r.Notes = append(r.Notes, unresolvedNote(r.Resolution, r.Unresolved))
	}
	candidates := map[string]bool{}
	for _, u := range units {
		t := u.Info.Transitional
		if t == nil {
			if e, ok := untracked(u, in.Policy); ok {
				r.Units = append(r.Units, e)
			}
			continue
		}
		e, prunable := classify(in.Policy, r, u.Name, t, known, sources, rel)
		if prunable {
			candidates[u.Name] = true
		}
		r.Units = append(r.Units, e)
	}
	r.blockPruning(reverseDeps(in.Values), candidates)
	slices.SortFunc(r.Units, func(a, b AuditedUnit) int {
		if c := a.State.rank() - b.State.rank(); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
	return r, nil
}

// newAuditReport is the report of in with its header and the notes on
// its release: unknown, where it was read, or past the catalog's newest
// with its sources assumed.
func newAuditReport(in AuditInput, rel semver.Version, sources []semver.Version, assumed bool) *Report {
	r := &Report{
		APIVersion: APIVersion, Kind: KindAudit,
		Metadata:         envelope.NewMetadata(in.ToolVersion, in.CatalogVersion, in.AsOf),
		SupportedSources: shorts(sources),
		SourcesAssumed:   assumed,
		Resolution:       ResolutionLiteral,
		Units:            []AuditedUnit{},
		files:            slices.Clone(in.Files),
		inferred:         in.ReleaseInferred,
	}
	if in.ReleaseUnknown != "" {
		r.Notes = append(r.Notes, "no release: "+in.ReleaseUnknown+"; transitional units are undecided")
		return r
	}
	r.Release = rel.Short()
	if in.ReleaseFrom != "" {
		r.Notes = append(r.Notes, fmt.Sprintf("release %s read from %s", r.Release, in.ReleaseFrom))
	}
	if assumed {
		past := fmt.Sprintf("%s is newer than the catalog's newest release %s", r.Release, in.Policy.Newest().Short())
		if in.Policy.PastNewest != nil {
			past = in.Policy.PastNewest(rel)
		}
		note := fmt.Sprintf("%s: its supported upgrade sources are assumed to be %s (n-2 policy)", past, andList(r.SupportedSources))
		if in.Policy.PastNewestFix != "" {
			note += "; " + in.Policy.PastNewestFix
		}
		r.Notes = append(r.Notes, note)
	}
	return r
}

// blockPruning marks blocked each prunable unit that a unit that stays
// (enabled, or possibly enabled) lists in depends_on, naming those units
// and the fix, and fills in every unit's dependents from graph. Units
// pruned together do not block each other, so the prunable set
// (candidates) shrinks to a fixpoint.
func (r *Report) blockPruning(graph map[string][]edge, candidates map[string]bool) {
	blockers := func(name string) []edge {
		var out []edge
		for _, d := range graph[name] {
			if !candidates[d.from] {
				out = append(out, d)
			}
		}
		return out
	}
	for changed := true; changed; {
		changed = false
		for _, name := range slices.Sorted(maps.Keys(candidates)) {
			if len(blockers(name)) > 0 {
				delete(candidates, name)
				changed = true
			}
		}
	}
	for i := range r.Units {
		e := &r.Units[i]
		switch e.State {
		case StateUntracked, StateUndecided, StateKeep:
			e.Dependents, e.ConditionalDependents = edgeNames(graph[e.Name])
			continue
		case StatePrunable:
			if candidates[e.Name] {
				continue
			}
		default:
			continue
		}
		e.State = StateBlocked
		bl := blockers(e.Name)
		e.Dependents, e.ConditionalDependents = edgeNames(bl)
		named := make([]string, len(bl))
		for j, d := range bl {
			named[j] = d.describe()
		}
		e.Reason += "; but " + andList(named) + " still depend" + cell.Plural(len(named), "s", "") + " on it: remove " +
			cell.Plural(len(named), "that dependency", "those dependencies") + ", or prune it together with " + cell.Plural(len(named), "that unit", "those units")
	}
}

// unresolvedNote summarises the unresolved entries by kind.
func unresolvedNote(res Resolution, list []Unresolved) string {
	counts := map[UnresolvedKind]int{}
	for _, u := range list {
		counts[u.Kind]++
	}
	var parts []string
	for _, k := range []struct {
		kind UnresolvedKind
		what string
	}{
		{UnresolvedCondition, "conditions read as possibly true"},
		{UnresolvedUnitTemplate, "unit_templates entries not applied"},
		{UnresolvedDependsOn, "depends_on maps not read"},
		{UnresolvedDependencyKey, "depends_on keys not read"},
		{UnresolvedInfo, "info fields read as written"},
	} {
		if n := counts[k.kind]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, k.what))
		}
	}
	prefix := "values read literally"
	if res == ResolutionChart {
		prefix = "the chart left gotpl"
	}
	return fmt.Sprintf("%s: %d gotpl entries are unresolved (%s); dependents reached only through them are missing", prefix, len(list), strings.Join(parts, ", "))
}

// edge is one dependency seen from the unit depended on.
type edge struct {
	from string
	key  string // the depends_on key, "namespace/unit" or the unit name
	// why is "" for a sure dependency, else what makes it conditional.
	why string
}

func (e edge) describe() string {
	s := e.from
	if e.key != "" && strings.Contains(e.key, "/") {
		s += " (as " + e.key + ")"
	}
	if e.why != "" {
		s += " (" + e.why + ")"
	}
	return s
}

func edgeNames(edges []edge) (all, conditional []string) {
	for _, e := range edges {
		all = append(all, e.from)
		if e.why != "" {
			conditional = append(conditional, e.from)
		}
	}
	return all, conditional
}

// reverseDeps maps each unit name to the units that may be enabled and may
// depend on it, under its name or a namespace/name key, and to the holders
// of the gotpl strings that name it (Values.TemplateRefs: a unit, or the
// path of a string outside the units), sorted by name (one edge per
// dependent: a sure edge wins over a conditional one).
func reverseDeps(v *Values) map[string][]edge {
	out := map[string][]edge{}
	if v == nil {
		return out
	}
	for _, u := range v.Units {
		en := u.Enablement()
		if en == EnabledNo {
			continue
		}
		seen := map[string]int{}
		for _, d := range u.DependsOn {
			if d.Unit == u.Name || (!d.When.IsTrue() && !d.When.IsTemplate()) {
				continue
			}
			e := edge{from: u.Name, key: d.Key}
			switch {
			case d.FalseHere:
				e.why = "named in depends_on under a template false with these values"
			case d.When.IsTemplate():
				e.why = "depends_on set by a template"
			case en == EnabledMaybe:
				e.why = "enabled by a template"
				if u.OneShot.IsTrue() && !u.Enabled.IsTemplate() && !slices.ContainsFunc(u.EnabledConditions, Flag.IsTemplate) {
					e.why = "one_shot, skipped once done"
				}
			}
			if i, ok := seen[d.Unit]; ok {
				if out[d.Unit][i].why != "" && e.why == "" {
					out[d.Unit][i] = e
				}
				continue
			}
			seen[d.Unit] = len(out[d.Unit])
			out[d.Unit] = append(out[d.Unit], e)
		}
	}
	// A gotpl string naming a unit holds it whatever its holder's
	// enablement: the chart interprets every string of the values.
	for _, ref := range v.TemplateRefs {
		from := cmp.Or(ref.Holder, ref.Path)
		if slices.ContainsFunc(out[ref.Unit], func(e edge) bool { return e.from == from }) {
			continue
		}
		why := "its template at " + ref.Path + " names it"
		if ref.Holder == "" {
			why = "a template there names it"
		}
		out[ref.Unit] = append(out[ref.Unit], edge{from: from, why: why})
	}
	for name := range out {
		slices.SortStableFunc(out[name], func(a, b edge) int { return strings.Compare(a.from, b.from) })
	}
	return out
}

// firstPrunable returns the first release at or after from, and after x, in
// which every supported upgrade source is newer than x. It looks at the
// policy's releases, then at the three releases after the newest one, whose
// sources are assumed.
func firstPrunable(p Policy, x, from semver.Version) (rel semver.Version, assumed, ok bool) {
	if from.CompareMinor(x) <= 0 {
		from = x.AddMinor(1)
	}
	from = from.MinorOnly()
	var candidates []semver.Version
	for _, pr := range p.Releases {
		if pr.Release.CompareMinor(from) >= 0 {
			candidates = append(candidates, pr.Release.MinorOnly())
		}
	}
	next := p.Newest().AddMinor(1)
	if from.CompareMinor(next) > 0 && from.Major == next.Major {
		next = from
	}
	for i := range 3 {
		candidates = append(candidates, next.AddMinor(i))
	}
	for _, r := range candidates {
		sources, a, err := p.Sources(r)
		if err != nil {
			continue
		}
		if !slices.ContainsFunc(sources, func(s semver.Version) bool { return s.CompareMinor(x) <= 0 }) {
			return r, a, true
		}
	}
	return semver.Version{}, false, false
}

func mustSources(p Policy, r semver.Version) []semver.Version {
	s, _, _ := p.Sources(r)
	return s
}

// The patterns of the transitional-unit comments are compiled on first
// use: a case-insensitive pattern costs a millisecond to compile, which
// every command of the binary would otherwise pay at start.
var (
	removalRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(?:removed?|deleted?|drop(?:ped)?|pruned?)\s+(after|in|with|by|from)\s+(?:the\s+)?(?:sylva\s+)?(?:release[\s-]+)?v?(\d+)\.(\d+)`)
	})
	// removalSoonRe finds the unit's removal announced without a release
	// ("This unit can be removed after next release").
	removalSoonRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(?:this\s+unit|it)\s+(?:should|will|can|must)\s+be\s+(?:removed|deleted|dropped|pruned)\b[^.;()]*`)
	})
	upgradeRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(?:upgrad(?:e|es|ing)|migrat(?:e|es|ing|ion)|transition(?:s|ing)?)\s+from\s+(?:sylva\s+)?(?:release[\s-]+)?v?(\d+)\.(\d+)`)
	})
)

// untracked reports a unit that looks transitional but carries no metadata:
// a one_shot unit, or one whose description or details say it will be
// removed. It infers from-X from the text when it can: "upgrading from X"
// names X; under the y-1 policy such texts were written for, "removed after
// N" means the unit served upgrades from N-1 and "removed in N" from N-2.
func untracked(u Unit, p Policy) (AuditedUnit, bool) {
	text := strings.Join(strings.Fields(u.Info.Description+" "+u.Info.Details), " ")
	removal := removalRe().FindStringSubmatch(text)
	soon := ""
	if removal == nil {
		soon = strings.TrimSpace(removalSoonRe().FindString(text))
	}
	oneShot := u.OneShot.IsTrue() || u.OneShot.IsTemplate()
	if removal == nil && soon == "" && !oneShot {
		return AuditedUnit{}, false
	}
	e := AuditedUnit{Name: u.Name, State: StateUntracked}
	var why []string
	if oneShot {
		why = append(why, "one_shot unit")
	}
	switch {
	case removal != nil:
		why = append(why, fmt.Sprintf("info says %q", removal[0]))
	case soon != "":
		why = append(why, fmt.Sprintf("info says %q", soon))
	}
	e.Reason = strings.Join(why, ", ") + ", but no transitional-unit metadata"

	var x semver.Version
	var inferred string
	if m := upgradeRe().FindStringSubmatch(text); m != nil {
		if v, ok := minor(m[1], m[2], 0); ok {
			x, inferred = v, fmt.Sprintf("from %q", m[0])
		}
	}
	if inferred == "" && removal != nil {
		back := 2
		if strings.EqualFold(removal[1], "after") {
			back = 1
		}
		if v, ok := minor(removal[2], removal[3], back); ok {
			x, inferred = v, "(under the y-1 policy that text was written for)"
		}
	}
	if inferred == "" {
		e.SuggestedMetadata = "info: {transitional-unit: from-X.Y}"
		e.Reason += "; set X.Y to the last release whose upgrades need it"
		return e, true
	}
	e.SuggestedMetadata = fmt.Sprintf("info: {transitional-unit: from-%s}", x.Short())
	e.Reason += fmt.Sprintf("; from-%s inferred %s", x.Short(), inferred)
	if pr, _, ok := firstPrunable(p, x, x.AddMinor(1)); ok {
		e.Reason += fmt.Sprintf(", prunable in %s", pr.Short())
	}
	return e, true
}

// minor builds MAJOR.(MINOR-back) from regexp digits.
func minor(major, min string, back int) (semver.Version, bool) {
	ma, err1 := strconv.Atoi(major)
	mi, err2 := strconv.Atoi(min)
	if err1 != nil || err2 != nil || mi-back < 0 || ma > 1<<20 || mi > 1<<20 {
		return semver.Version{}, false
	}
	return semver.Version{Major: ma, Minor: mi - back}, true
}

func supportsPhrase(rel string, sources []string) string {
	if len(sources) == 0 {
		return rel + " supports no upgrade source"
	}
	return rel + " supports upgrades from " + andList(sources) + " only"
}

func shorts(vs []semver.Version) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = v.Short()
	}
	return out
}

// andList joins "a", "a and b", "a, b and c".
func andList(s []string) string {
	switch len(s) {
	case 0:
		return "none"
	case 1:
		return s[0]
	}
	return strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
}
