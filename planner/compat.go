package planner

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"gitlab.com/sylva-projects/sylva-planner/catalog"
	"gitlab.com/sylva-projects/sylva-planner/cell"
	"gitlab.com/sylva-projects/sylva-planner/semver"
	"gitlab.com/sylva-projects/sylva-planner/skew"
)

// Stable finding codes and the check of component compatibility.
const (
	CodeThinRelease           = "component-list-thin"
	componentCompatibility    = "component-compatibility"
	componentCompatibilityMsg = "component versions against each pass's Kubernetes minors"
)

// incompatible is what a component version v that does not support the
// Kubernetes minor k during subject ("pass N") misses. mergeRanges later
// folds the findings of one component version into one.
func incompatible(comp *catalog.Component, v semver.Version, r skew.Range, k semver.Version, subject string) *rangeMiss {
	return &rangeMiss{comp: comp, version: v, supports: r, minors: []semver.Version{k}, passes: []string{subject}}
}

// rangeIndex keeps, by message, what each component-k8s-range finding is
// about, so that mergeRanges can fold them: the finding itself is the plain
// finding.Finding every output writes.
type rangeIndex map[string]*rangeMiss

// note records m and returns its finding.
func (x *rangeIndex) note(m *rangeMiss) Finding {
	f := m.finding()
	if *x == nil {
		*x = rangeIndex{}
	}
	(*x)[f.Message] = m
	return f
}

// rangeMiss is what a component-k8s-range finding is about.
type rangeMiss struct {
	comp     *catalog.Component
	version  semver.Version
	supports skew.Range
	minors   []semver.Version
	passes   []string
}

// finding is the component-k8s-range finding of m: actionable when a
// newer catalog version supports every minor the plan needs (the finding
// names it), pinned when that version exists but the component is pinned,
// waiting when no known version supports them yet.
func (m *rangeMiss) finding() Finding {
	f := Finding{Code: CodeComponentK8sRange, Severity: SeverityBlocker, Subject: m.comp.Name}
	minors := make([]string, len(m.minors))
	for i, k := range m.minors {
		minors[i] = k.Short()
	}
	f.Message = fmt.Sprintf("%s %s supports Kubernetes %s, but the plan runs it on %s (%s)", m.comp.Name, m.version, m.supports, strings.Join(minors, " and "), strings.Join(m.passes, ", "))
	need := strings.Join(minors, ", ")
	fix, ok := newerSupporting(m.comp, m.version, m.minors)
	top := m.minors[len(m.minors)-1]
	switch {
	case ok && m.comp.Pinned:
		f.Class = ClassPinned
		f.Remediation = fmt.Sprintf("%s is pinned (%s); %s %s supports Kubernetes %s once the pin is lifted", m.comp.Name, m.comp.PinReason, m.comp.Name, fix, need)
	case ok:
		f.Class = ClassActionable
		f.Remediation = fmt.Sprintf("upgrade %s to ≥ %s", m.comp.Name, fix)
	case newestKnown(m.comp).Compare(m.version) > 0 || m.supports.Max.IsZero() || top.CompareMinor(m.supports.Max) <= 0:
		// A newer version exists but none covers every minor, or a minor
		// is below the range: still a version question for a person.
		f.Class = ClassActionable
		f.Remediation = fmt.Sprintf("pick %s versions that support Kubernetes %s for these passes", m.comp.Name, need)
	default:
		f.Class = ClassWaiting
		f.Remediation = fmt.Sprintf("no released %s version supports Kubernetes %s yet; wait for upstream", m.comp.Name, top.Short())
	}
	return f
}

// mergeRanges folds the component-k8s-range findings of one component
// version (those ranges noted) into one finding listing every minor and
// pass, keeping the first one's place.
func mergeRanges(fs []Finding, ranges rangeIndex) []Finding {
	var out []Finding
	type merged struct {
		at   int
		miss *rangeMiss
	}
	seen := map[string]merged{}
	for _, f := range fs {
		r := ranges[f.Message]
		if f.Code != CodeComponentK8sRange || r == nil {
			out = append(out, f)
			continue
		}
		key := r.comp.Name + "\x00" + r.version.String()
		s, ok := seen[key]
		if !ok {
			m := *r
			m.minors, m.passes = slices.Clone(r.minors), slices.Clone(r.passes)
			seen[key] = merged{at: len(out), miss: &m}
			out = append(out, f)
			continue
		}
		m := s.miss
		for _, k := range r.minors {
			if !slices.ContainsFunc(m.minors, k.Equal) {
				m.minors = append(m.minors, k)
			}
		}
		for _, ps := range r.passes {
			if !slices.Contains(m.passes, ps) {
				m.passes = append(m.passes, ps)
			}
		}
		slices.SortFunc(m.minors, semver.Version.Compare)
		inBaseline := out[s.at].InBaseline
		out[s.at] = m.finding()
		out[s.at].InBaseline = inBaseline
	}
	return out
}

// newerSupporting returns the oldest catalog version of comp newer than v
// whose range contains every minor of ks.
func newerSupporting(comp *catalog.Component, v semver.Version, ks []semver.Version) (semver.Version, bool) {
	for _, cv := range comp.Versions {
		if cv.Version.Compare(v) > 0 && !cv.Matches(v) && !slices.ContainsFunc(ks, func(k semver.Version) bool { return !cv.Kubernetes().Contains(k) }) {
			return cv.Version, true
		}
	}
	return semver.Version{}, false
}

func newestKnown(comp *catalog.Component) semver.Version {
	if len(comp.Versions) == 0 {
		return semver.Version{}
	}
	return comp.Versions[len(comp.Versions)-1].Version
}

// thinReleases says on how many components the compatibility check was
// assessed, and reports each release of the route that lists no version of
// a component the source release ships (its catalog entry is thin: what it
// does not list is not judged).
func (p *Plan) thinReleases(cat *catalog.Catalog) string {
	src, ok := cat.Release(semver.MustParse(p.From.Release))
	if !ok || len(p.Route) < 2 {
		return ""
	}
	judged := map[string]bool{}
	for _, r := range p.Route[1:] {
		rel, ok := cat.Release(semver.MustParse(r))
		if !ok {
			continue
		}
		var listed, missing []string
		for _, rc := range rel.Components {
			listed = append(listed, rc.Name)
			judged[rc.Name] = true
		}
		for _, rc := range src.Components {
			if _, ok := rel.Component(rc.Name); !ok {
				missing = append(missing, rc.Name)
			}
		}
		if len(missing) == 0 {
			continue
		}
		p.add(Finding{
			Code: CodeThinRelease, Severity: SeverityInfo, Subject: rel.Release.String(),
			Message: fmt.Sprintf("Sylva %s is assessed on %s (%s), all the catalog lists for it; %s, which %s ships, %s not judged",
				rel.Release, cell.Count(len(listed), "component", "components"), strings.Join(listed, ", "), strings.Join(missing, ", "), src.Release, isAre(len(missing))),
			Remediation: fmt.Sprintf("add the component versions Sylva %s ships to the catalog (sylva-planner catalog import, or by hand with their source)", rel.Release),
		})
	}
	names := slices.Sorted(maps.Keys(judged))
	return fmt.Sprintf("assessed on %s (%s)", cell.Count(len(names), "component", "components"), strings.Join(names, ", "))
}

func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}

// rangeFindings checks that both versions of a component live during a pass
// support both control-plane minors of the pass, and returns what each
// misses.
func rangeFindings(cat *catalog.Catalog, subject, name string, before, after, cpBefore, cpAfter semver.Version) []*rangeMiss {
	comp, ok := cat.Component(name)
	if !ok {
		return nil
	}
	var out []*rangeMiss
	for _, v := range uniqueVersions(before, after) {
		cv, ok := comp.Version(v)
		if !ok {
			continue
		}
		r := cv.Kubernetes()
		for _, k := range uniqueVersions(cpBefore, cpAfter) {
			if !r.Contains(k) {
				out = append(out, incompatible(comp, v, r, k, subject))
			}
		}
	}
	return out
}

func uniqueVersions(a, b semver.Version) []semver.Version {
	if a.IsZero() {
		return []semver.Version{b}
	}
	if a.Equal(b) {
		return []semver.Version{a}
	}
	return []semver.Version{a, b}
}
