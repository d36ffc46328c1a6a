package units

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"gitlab.com/sylva-projects/sylva-planner/skew"
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
	// StateKeep: a supported upgrade source still needs the unit.
	StateKeep State = "keep"
)

// States lists every state in report order.
var States = []State{StatePrunable, StateBlocked, StateMalformed, StateUntracked, StateKeep}

func (s State) rank() int { return slices.Index(States, s) }

// AuditInput is what Audit needs.
type AuditInput struct {
	Values  *Values
	Release skew.Version
	// ReleaseFrom says where Release was read when it came from the values
	// ("" when the user named it); the report notes it.
	ReleaseFrom string
	Policy      Policy
	// ToolVersion and CatalogVersion go to the report's metadata.
	ToolVersion    string
	CatalogVersion string
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
	// Release is the audited release, MAJOR.MINOR.
	Release string `json:"release"`
	// SupportedSources are the releases Release supports upgrading from,
	// oldest first.
	SupportedSources []string `json:"supportedSources"`
	// SourcesAssumed is true when Release is newer than the catalog and
	// SupportedSources follow the n-2 policy by assumption.
	SourcesAssumed bool `json:"sourcesAssumed,omitempty"`
	// Notes explain how the release and its sources were chosen.
	Notes []string `json:"notes,omitempty"`
	// Units lists transitional units and untracked candidates, sorted by
	// state (in the order of States), then name.
	Units []AuditedUnit `json:"units"`

	files []string
}

// Metadata identifies what produced a report.
type Metadata struct {
	ToolVersion    string `json:"toolVersion"`
	CatalogVersion string `json:"catalogVersion"`
}

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
	// Dependents are the units that block pruning, sorted.
	Dependents []string `json:"dependents,omitempty"`
	Reason     string   `json:"reason"`
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

// Audit classifies every transitional unit of in.Values for in.Release:
// a unit marked from-X is needed while a supported upgrade source of the
// release is X or older, so it becomes prunable in the first release whose
// oldest supported source is newer than X. The error wraps
// ErrUnknownRelease when the policy cannot place the release.
func Audit(in AuditInput) (*Report, error) {
	rel := in.Release.MinorOnly()
	sources, assumed, err := in.Policy.Sources(rel)
	if err != nil {
		return nil, err
	}
	r := &Report{
		APIVersion: APIVersion, Kind: KindAudit,
		Metadata:         Metadata{ToolVersion: in.ToolVersion, CatalogVersion: in.CatalogVersion},
		Release:          rel.Short(),
		SupportedSources: shorts(sources),
		SourcesAssumed:   assumed,
		Units:            []AuditedUnit{},
		files:            slices.Clone(in.Files),
	}
	if in.ReleaseFrom != "" {
		r.Notes = append(r.Notes, fmt.Sprintf("release %s read from %s", r.Release, in.ReleaseFrom))
	}
	if assumed {
		r.Notes = append(r.Notes, fmt.Sprintf("%s is newer than the catalog's newest release %s: its supported upgrade sources are assumed to be %s (n-2 policy)",
			r.Release, in.Policy.Newest().Short(), andList(r.SupportedSources)))
	}

	var units []Unit
	if in.Values != nil {
		units = in.Values.Units
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
		e := AuditedUnit{Name: u.Name, TransitionalFrom: t.Raw}
		switch {
		case t.Problem != "":
			e.State = StateMalformed
			e.Reason = "transitional-unit " + t.Problem
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
				if p, pAssumed, ok := firstPrunable(in.Policy, x, rel.AddMinor(1)); ok {
					e.PrunableIn = p.Short()
					if pAssumed {
						e.Reason += fmt.Sprintf(" (prunable in %s if %s supports upgrades from %s only)", e.PrunableIn, e.PrunableIn, andList(shorts(mustSources(in.Policy, p))))
					}
				}
			} else {
				e.State = StatePrunable
				e.Reason = fmt.Sprintf("needed only by upgrades from %s or older; %s", x.Short(), supportsPhrase(r.Release, r.SupportedSources))
				if p, _, ok := firstPrunable(in.Policy, x, x.AddMinor(1)); ok && p.CompareMinor(rel) <= 0 {
					e.PrunableIn = p.Short()
				} else {
					e.PrunableIn = r.Release
				}
				candidates[u.Name] = true
			}
		}
		r.Units = append(r.Units, e)
	}

	// A prunable unit is blocked while a unit that stays (enabled, or
	// enabled by a template) lists it in depends_on. Units pruned together
	// do not block each other, so shrink the prunable set to a fixpoint.
	rdeps := reverseDeps(units)
	blockers := func(name string) []string {
		var out []string
		for _, d := range rdeps[name] {
			if !candidates[d] {
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
		if e.State != StatePrunable || candidates[e.Name] {
			continue
		}
		e.State = StateBlocked
		e.Dependents = blockers(e.Name)
		var named []string
		for _, d := range e.Dependents {
			du, _ := in.Values.Unit(d)
			f, _ := du.DependsOnUnit(e.Name)
			switch {
			case f.IsTemplate():
				named = append(named, d+" (depends_on set by a template)")
			case du.Enablement() == EnabledMaybe:
				named = append(named, d+" (enabled by a template)")
			default:
				named = append(named, d)
			}
		}
		e.Reason += "; but " + andList(named) + " still depend" + plural(len(named), "s", "") + " on it: remove " +
			plural(len(named), "that dependency", "those dependencies") + ", or prune it together with " + plural(len(named), "that unit", "those units")
	}
	slices.SortFunc(r.Units, func(a, b AuditedUnit) int {
		if c := a.State.rank() - b.State.rank(); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
	return r, nil
}

// reverseDeps maps each unit name to the sorted units that may depend on it
// and may be enabled.
func reverseDeps(units []Unit) map[string][]string {
	out := map[string][]string{}
	for _, u := range units {
		if u.Enablement() == EnabledNo {
			continue
		}
		for _, d := range u.DependsOn {
			if d.Unit != u.Name && (d.When.IsTrue() || d.When.IsTemplate()) {
				out[d.Unit] = append(out[d.Unit], u.Name)
			}
		}
	}
	return out // units are sorted by name, so each list is too
}

// firstPrunable returns the first release at or after from, and after x, in
// which every supported upgrade source is newer than x. It looks at the
// policy's releases, then at the three releases after the newest one, whose
// sources are assumed.
func firstPrunable(p Policy, x, from skew.Version) (rel skew.Version, assumed, ok bool) {
	if from.CompareMinor(x) <= 0 {
		from = x.AddMinor(1)
	}
	from = from.MinorOnly()
	var candidates []skew.Version
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
		if !slices.ContainsFunc(sources, func(s skew.Version) bool { return s.CompareMinor(x) <= 0 }) {
			return r, a, true
		}
	}
	return skew.Version{}, false, false
}

func mustSources(p Policy, r skew.Version) []skew.Version {
	s, _, _ := p.Sources(r)
	return s
}

var (
	removalRe = regexp.MustCompile(`(?i)\b(?:removed?|deleted?|drop(?:ped)?|pruned?)\s+(after|in|with|by|from)\s+(?:the\s+)?(?:sylva\s+)?(?:release[\s-]+)?v?(\d+)\.(\d+)`)
	upgradeRe = regexp.MustCompile(`(?i)\b(?:upgrad(?:e|es|ing)|migrat(?:e|es|ing|ion)|transition(?:s|ing)?)\s+from\s+(?:sylva\s+)?(?:release[\s-]+)?v?(\d+)\.(\d+)`)
)

// untracked reports a unit that looks transitional but carries no metadata:
// a one_shot unit, or one whose description or details say it will be
// removed. It infers from-X from the text when it can: "upgrading from X"
// names X; under the y-1 policy such texts were written for, "removed after
// N" means the unit served upgrades from N-1 and "removed in N" from N-2.
func untracked(u Unit, p Policy) (AuditedUnit, bool) {
	text := strings.Join(strings.Fields(u.Info.Description+" "+u.Info.Details), " ")
	removal := removalRe.FindStringSubmatch(text)
	oneShot := u.OneShot.IsTrue() || u.OneShot.IsTemplate()
	if removal == nil && !oneShot {
		return AuditedUnit{}, false
	}
	e := AuditedUnit{Name: u.Name, State: StateUntracked}
	var why []string
	if oneShot {
		why = append(why, "one_shot unit")
	}
	if removal != nil {
		why = append(why, fmt.Sprintf("info says %q", removal[0]))
	}
	e.Reason = strings.Join(why, ", ") + ", but no transitional-unit metadata"

	var x skew.Version
	var inferred string
	if m := upgradeRe.FindStringSubmatch(text); m != nil {
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
func minor(major, min string, back int) (skew.Version, bool) {
	ma, err1 := strconv.Atoi(major)
	mi, err2 := strconv.Atoi(min)
	if err1 != nil || err2 != nil || mi-back < 0 || ma > 1<<20 || mi > 1<<20 {
		return skew.Version{}, false
	}
	return skew.Version{Major: ma, Minor: mi - back}, true
}

func supportsPhrase(rel string, sources []string) string {
	if len(sources) == 0 {
		return rel + " supports no upgrade source"
	}
	return rel + " supports upgrades from " + andList(sources) + " only"
}

func shorts(vs []skew.Version) []string {
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

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
