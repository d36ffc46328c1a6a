package planner

import (
	"fmt"
	"slices"

	"gitlab.com/sylva-projects/sylva-planner/catalog"
	"gitlab.com/sylva-projects/sylva-planner/semver"
)

// Observed is what an inventory saw on the cluster. A nil *Observed means
// the plan is computed from the catalog alone.
type Observed struct {
	// Source names the inventory ("manifests in DIR", "cluster CONTEXT").
	Source string
	// Components are the component versions seen running.
	Components []ObservedComponent
	// Checks are the inventory's own capabilities (what it could read),
	// reported with the plan's checks and feeding its verdict.
	Checks []Check
	// Findings come from live checks computed outside the planner (drains,
	// removed APIs); they join the plan's findings before the verdict.
	Findings []Finding
	// JudgePasses, when set, judges what runs against the planned passes
	// (the removed-API check needs each pass's control-plane target): its
	// findings and checks join the plan after Findings and Checks, before
	// the verdict, in the same Compute.
	JudgePasses PassJudge `json:"-"`
}

// PassTarget is the control-plane Kubernetes minor a pass takes the cluster
// to.
type PassTarget struct {
	Pass         int
	ControlPlane semver.Version
}

// PassJudge judges facts against the passes' targets, given in pass order.
type PassJudge func(targets []PassTarget) ([]Finding, []Check)

// Targets are the control-plane targets of the plan's passes, in pass
// order; a pass whose target does not parse is left out, and a plan
// without passes has none.
func (p *Plan) Targets() []PassTarget {
	var out []PassTarget
	for _, ps := range p.Passes {
		if v, err := semver.Parse(ps.ControlPlane.To); err == nil {
			out = append(out, PassTarget{Pass: ps.Index, ControlPlane: v})
		}
	}
	return out
}

// ObservedComponent is one component version seen running. Raw is what was
// read; Version is zero when Raw does not parse.
type ObservedComponent struct {
	Name    string
	Raw     string
	Version semver.Version
	// Where says where it was seen (an image, a label, a Helm release).
	Where string
}

func (o *Observed) versions() map[string]semver.Version {
	if o == nil {
		return nil
	}
	out := map[string]semver.Version{}
	for _, c := range o.Components {
		if !c.Version.IsZero() {
			out[c.Name] = c.Version
		}
	}
	return out
}

// Stable finding codes of the running versions.
const (
	CodeVersionUnreadable   = "component-version-unreadable"
	CodeVersionBelowCatalog = "component-version-below-catalog"
	CodeVersionUnknown      = "component-version-unknown"
)

// observedFindings judges the running versions the route does not replace,
// and reports versions that cannot be judged; it returns the components it
// could not judge.
func (p *Plan) observedFindings(obs *Observed, cat *catalog.Catalog, final map[string]semver.Version) []string {
	var unknown []string
	for _, oc := range obs.Components {
		comp, ok := cat.Component(oc.Name)
		if !ok {
			continue
		}
		subject := oc.Name
		switch {
		case oc.Version.IsZero():
			p.add(Finding{
				Code: CodeVersionUnreadable, Severity: SeverityBlocker, Class: ClassActionable, Subject: subject,
				Message:     fmt.Sprintf("the running %s version %q (%s) cannot be read", oc.Name, oc.Raw, oc.Where),
				Remediation: "check which version runs and whether it supports every Kubernetes minor of the plan",
			})
			continue
		case len(comp.Versions) > 0 && oc.Version.Compare(comp.Versions[0].Version) < 0 && !comp.Versions[0].Matches(oc.Version):
			p.add(Finding{
				Code: CodeVersionBelowCatalog, Severity: SeverityBlocker, Class: ClassActionable, Subject: subject,
				Message:     fmt.Sprintf("%s %s runs (%s), older than any version the catalog knows (%s)", oc.Name, oc.Version, oc.Where, comp.Versions[0].Version),
				Remediation: fmt.Sprintf("upgrade %s to a version the catalog covers before the transition", oc.Name),
			})
			continue
		}
		if _, ok := comp.Version(oc.Version); !ok {
			unknown = append(unknown, oc.Name+" "+oc.Version.String())
			p.add(Finding{
				Code: CodeVersionUnknown, Severity: SeverityWarning, Subject: subject,
				Message:     fmt.Sprintf("%s %s runs (%s); the catalog has no Kubernetes range for it, so it was not judged", oc.Name, oc.Version, oc.Where),
				Remediation: "add the version and its Kubernetes range to the component catalog",
			})
			continue
		}
		if _, managed := final[oc.Name]; managed {
			continue // the passes replace it; planHop judged both versions
		}
		// Not shipped by the target: it keeps running through every pass.
		for _, ps := range p.Passes {
			for _, k := range uniqueVersions(semver.MustParse(ps.ControlPlane.From), semver.MustParse(ps.ControlPlane.To)) {
				cv, _ := comp.Version(oc.Version)
				if !cv.Kubernetes().Contains(k) {
					p.add(p.ranges.note(incompatible(comp, oc.Version, cv.Kubernetes(), k, fmt.Sprintf("pass %d", ps.Index))))
				}
			}
		}
		final[oc.Name] = oc.Version
	}
	slices.Sort(unknown)
	return unknown
}
