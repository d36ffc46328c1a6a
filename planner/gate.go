package planner

import (
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"
	"time"

	"gitlab.com/sylva-projects/sylva-planner/catalog"
	"gitlab.com/sylva-projects/sylva-planner/skew"
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
	ControlPlane skew.Version
}

// PassJudge judges facts against the passes' targets, given in pass order.
type PassJudge func(targets []PassTarget) ([]Finding, []Check)

// Targets are the control-plane targets of the plan's passes, in pass
// order; a pass whose target does not parse is left out, and a plan
// without passes has none.
func (p *Plan) Targets() []PassTarget {
	var out []PassTarget
	for _, ps := range p.Passes {
		if v, err := skew.Parse(ps.ControlPlane.To); err == nil {
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
	Version skew.Version
	// Where says where it was seen (an image, a label, a Helm release).
	Where string
}

func (o *Observed) versions() map[string]skew.Version {
	if o == nil {
		return nil
	}
	out := map[string]skew.Version{}
	for _, c := range o.Components {
		if !c.Version.IsZero() {
			out[c.Name] = c.Version
		}
	}
	return out
}

// Suppression silences findings matching Code (exactly, or "*") and Subject
// (a path.Match glob) until Expires (zero: never). An expired suppression no
// longer applies and is reported.
type Suppression struct {
	Code    string    `json:"code"`
	Subject string    `json:"subject"`
	Reason  string    `json:"reason"`
	Expires time.Time `json:"-"`
}

// SuppressedFinding is a finding a suppression silenced, with its reason.
type SuppressedFinding struct {
	Finding
	Reason string `json:"reason"`
}

// More stable finding codes of the gate.
const (
	CodeKBStale               = "kb-stale"
	CodeEOLComponent          = "eol-component"
	CodeEOLApproaching        = "eol-approaching"
	CodeEOLKubernetes         = "eol-kubernetes"
	CodeVersionUnreadable     = "component-version-unreadable"
	CodeVersionBelowCatalog   = "component-version-below-catalog"
	CodeVersionUnknown        = "component-version-unknown"
	CodeKubeadmWorkerLag      = "kubeadm-worker-lag"
	CodeRKE2SkewUnchecked     = "rke2-skew-enforced-by-planner"
	CodeSuppressionExpired    = "suppression-expired"
	CodeThinRelease           = "component-list-thin"
	eolWarningDays            = 90
	componentCompatibility    = "component-compatibility"
	componentCompatibilityMsg = "component versions against each pass's Kubernetes minors"
)

// incompatible is the finding for a component version v that does not
// support the Kubernetes minor k during subject ("pass N"). mergeRanges
// later folds the findings of one component version into one.
func incompatible(comp *catalog.Component, v skew.Version, r skew.Range, k skew.Version, subject string) Finding {
	f := Finding{
		Code: CodeComponentK8sRange, Severity: SeverityBlocker, Subject: comp.Name,
		rng: &rangeMiss{comp: comp, version: v, supports: r, minors: []skew.Version{k}, passes: []string{subject}},
	}
	f.classify()
	return f
}

// rangeMiss is what a component-k8s-range finding is about.
type rangeMiss struct {
	comp     *catalog.Component
	version  skew.Version
	supports skew.Range
	minors   []skew.Version
	passes   []string
}

// classify sets the message, class and remediation from f.rng: actionable
// when a newer catalog version supports every minor the plan needs (the
// finding names it), pinned when that version exists but the component is
// pinned, waiting when no known version supports them yet.
func (f *Finding) classify() {
	m := f.rng
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
}

// mergeRanges folds the component-k8s-range findings of one component
// version into one finding listing every minor and pass, keeping the first
// one's place.
func mergeRanges(fs []Finding) []Finding {
	var out []Finding
	seen := map[string]int{}
	for _, f := range fs {
		if f.rng == nil {
			out = append(out, f)
			continue
		}
		key := f.rng.comp.Name + "\x00" + f.rng.version.String()
		i, ok := seen[key]
		if !ok {
			seen[key] = len(out)
			out = append(out, f)
			continue
		}
		m := out[i].rng
		for _, k := range f.rng.minors {
			if !slices.ContainsFunc(m.minors, k.Equal) {
				m.minors = append(m.minors, k)
			}
		}
		for _, ps := range f.rng.passes {
			if !slices.Contains(m.passes, ps) {
				m.passes = append(m.passes, ps)
			}
		}
		slices.SortFunc(m.minors, skew.Version.Compare)
		out[i].classify()
	}
	return out
}

// newerSupporting returns the oldest catalog version of comp newer than v
// whose range contains every minor of ks.
func newerSupporting(comp *catalog.Component, v skew.Version, ks []skew.Version) (skew.Version, bool) {
	for _, cv := range comp.Versions {
		if cv.Version.Compare(v) > 0 && !cv.Matches(v) && !slices.ContainsFunc(ks, func(k skew.Version) bool { return !cv.Kubernetes().Contains(k) }) {
			return cv.Version, true
		}
	}
	return skew.Version{}, false
}

func newestKnown(comp *catalog.Component) skew.Version {
	if len(comp.Versions) == 0 {
		return skew.Version{}
	}
	return comp.Versions[len(comp.Versions)-1].Version
}

// gate adds what the gate checks on top of the route: running components
// (from an inventory), end of life on the plan's date, and the bootstrap
// provider's own rules. It returns the component-compatibility check.
func (p *Plan) gate(in Input, cat *catalog.Catalog, provider catalog.Provider) Check {
	check := Check{
		Name: componentCompatibility, Required: true, Status: CheckAssessed,
		Detail: "planned " + componentCompatibilityMsg + " (from the catalog)",
	}
	final := map[string]skew.Version{}
	if len(p.Passes) > 0 {
		for _, c := range p.Passes[len(p.Passes)-1].Components {
			if v, err := skew.Parse(c.To); err == nil {
				final[c.Name] = v
			}
		}
	}
	if in.Observed != nil {
		check.Detail = fmt.Sprintf("running %s (from %s)", componentCompatibilityMsg, in.Observed.Source)
		unknown := p.observedFindings(in.Observed, cat, final)
		if len(unknown) > 0 {
			check.Status = CheckPartial
			check.Detail += "; not judged: " + strings.Join(unknown, ", ")
		}
	}
	if len(p.Passes) > 0 {
		p.eolFindings(cat, final, in.AsOf)
		p.providerFindings(provider)
		check.Detail += "; " + p.thinReleases(cat)
	}
	return check
}

// thinReleases says on how many components the compatibility check was
// assessed, and reports each release of the route that lists no version of
// a component the source release ships (its catalog entry is thin: what it
// does not list is not judged).
func (p *Plan) thinReleases(cat *catalog.Catalog) string {
	src, ok := cat.Release(skew.MustParse(p.From.Release))
	if !ok {
		return ""
	}
	judged := map[string]bool{}
	for _, r := range p.Route[1:] {
		rel, ok := cat.Release(skew.MustParse(r))
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
				rel.Release, plural(len(listed), "component", "components"), strings.Join(listed, ", "), strings.Join(missing, ", "), src.Release, isAre(len(missing))),
			Remediation: fmt.Sprintf("add the component versions Sylva %s ships to the catalog (sylva-planner catalog import, or by hand with their source)", rel.Release),
		})
	}
	names := slices.Sorted(maps.Keys(judged))
	return fmt.Sprintf("assessed on %s (%s)", plural(len(names), "component", "components"), strings.Join(names, ", "))
}

func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}

// observedFindings judges the running versions the route does not replace,
// and reports versions that cannot be judged; it returns the components it
// could not judge.
func (p *Plan) observedFindings(obs *Observed, cat *catalog.Catalog, final map[string]skew.Version) []string {
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
			for _, k := range uniqueVersions(skew.MustParse(ps.ControlPlane.From), skew.MustParse(ps.ControlPlane.To)) {
				cv, _ := comp.Version(oc.Version)
				if !cv.Kubernetes().Contains(k) {
					p.add(incompatible(comp, oc.Version, cv.Kubernetes(), k, fmt.Sprintf("pass %d", ps.Index)))
				}
			}
		}
		final[oc.Name] = oc.Version
	}
	slices.Sort(unknown)
	return unknown
}

// eolFindings flags component versions the plan ends on whose end of life
// has passed (a blocker from 00:00 UTC of that day) or comes within 90 days
// (a warning), and the end of life of the target's Kubernetes minor.
func (p *Plan) eolFindings(cat *catalog.Catalog, final map[string]skew.Version, asOf time.Time) {
	day := asOf.UTC().Truncate(24 * time.Hour)
	soon := day.AddDate(0, 0, eolWarningDays)
	names := make([]string, 0, len(final))
	for n := range final {
		names = append(names, n)
	}
	slices.Sort(names)
	target, _ := cat.Release(skew.MustParse(p.To.Release))
	for _, name := range names {
		v := final[name]
		comp, ok := cat.Component(name)
		if !ok {
			continue
		}
		cv, ok := comp.Version(v)
		if !ok || cv.EndOfLife.IsZero() {
			continue
		}
		eol := cv.EndOfLife.Time
		shipped := false
		if target != nil {
			rc, ok := target.Component(name)
			shipped = ok && rc.Version.Equal(v)
		}
		switch {
		case shipped && !day.Before(eol):
			// The target release chose this version: no operator can
			// change it inside that release, and staying on an older
			// release is no better. It argues for a newer target.
			p.add(shippedEOL(cat, target, CodeEOLComponent, name, v, cv.EndOfLife.String(), day, "reached end of life on"))
		case shipped && eol.Before(soon):
			p.add(shippedEOL(cat, target, CodeEOLApproaching, name, v, cv.EndOfLife.String(), day, fmt.Sprintf("reaches end of life within %d days, on", eolWarningDays)))
		case !day.Before(eol):
			f := Finding{
				Code: CodeEOLComponent, Severity: SeverityBlocker, Subject: name,
				Message: fmt.Sprintf("%s %s reached end of life on %s", name, v, cv.EndOfLife),
			}
			if nv, ok := newerNotEOL(comp, v, day); ok {
				f.Class, f.Remediation = ClassActionable, fmt.Sprintf("upgrade %s to ≥ %s", name, nv)
				if comp.Pinned {
					f.Class, f.Remediation = ClassPinned, fmt.Sprintf("%s is pinned (%s)", name, comp.PinReason)
				}
			} else {
				f.Class, f.Remediation = ClassWaiting, fmt.Sprintf("no supported %s version is known yet", name)
			}
			p.add(f)
		case eol.Before(soon):
			p.add(Finding{
				Code: CodeEOLApproaching, Severity: SeverityWarning, Subject: name,
				Message:     fmt.Sprintf("%s %s reaches end of life on %s (within %d days)", name, v, cv.EndOfLife, eolWarningDays),
				Remediation: fmt.Sprintf("plan the upgrade of %s", name),
			})
		}
	}
	k8s := skew.MustParse(p.To.Kubernetes)
	if eol, ok := cat.KubeEndOfLife(k8s); ok {
		subject := "kubernetes " + k8s.Short()
		switch {
		case !day.Before(eol.Time):
			p.add(Finding{
				Code: CodeEOLKubernetes, Severity: SeverityWarning, Subject: subject,
				Message:     fmt.Sprintf("Kubernetes %s, which Sylva %s runs, reached end of life on %s", k8s.Short(), p.To.Release, eol),
				Remediation: "plan the next Sylva release soon after this one",
			})
		case eol.Before(soon):
			p.add(Finding{
				Code: CodeEOLApproaching, Severity: SeverityWarning, Subject: subject,
				Message:     fmt.Sprintf("Kubernetes %s, which Sylva %s runs, reaches end of life on %s (within %d days)", k8s.Short(), p.To.Release, eol, eolWarningDays),
				Remediation: "plan the next Sylva release soon after this one",
			})
		}
	}
}

// shippedEOL is the warning for a component version the target release
// itself ships past (or near) its end of life: it names the oldest newer
// release of the catalog that ships a version of it not yet past its end
// of life on day, the one fix an operator can apply.
func shippedEOL(cat *catalog.Catalog, target *catalog.Release, code, name string, v skew.Version, eol string, day time.Time, when string) Finding {
	f := Finding{
		Code: code, Severity: SeverityWarning, Subject: name,
		Message: fmt.Sprintf("%s %s, which Sylva %s ships, %s %s", name, v, target.Release, when, eol),
	}
	comp, _ := cat.Component(name)
	for _, r := range cat.Releases {
		if r.Release.Compare(target.Release) <= 0 {
			continue
		}
		rc, ok := r.Component(name)
		if !ok || rc.Version.Compare(v) <= 0 {
			continue
		}
		if cv, ok := comp.Version(rc.Version); ok && !cv.EndOfLife.IsZero() && !day.Before(cv.EndOfLife.Time) {
			continue
		}
		rel := "Sylva " + r.Release.String()
		if r.Development {
			rel += " (in development)"
		}
		f.Message += fmt.Sprintf("; %s ships %s %s", rel, name, rc.Version)
		f.Remediation = fmt.Sprintf("plan the upgrade to %s after this one (the version a release ships cannot be changed inside it)", rel)
		return f
	}
	f.Remediation = fmt.Sprintf("no newer Sylva release of the catalog ships a supported %s yet; plan the next release when it does (the version a release ships cannot be changed inside it)", name)
	return f
}

func newerNotEOL(comp *catalog.Component, v skew.Version, day time.Time) (skew.Version, bool) {
	for _, cv := range comp.Versions {
		if cv.Version.Compare(v) > 0 && !cv.Matches(v) && (cv.EndOfLife.IsZero() || day.Before(cv.EndOfLife.Time)) {
			return cv.Version, true
		}
	}
	return skew.Version{}, false
}

// providerFindings states what the bootstrap provider leaves to the planner.
func (p *Plan) providerFindings(provider catalog.Provider) {
	switch provider {
	case catalog.ProviderKubeadm:
		var lagging []string
		for _, ps := range p.Passes {
			if ps.Workers.From != ps.ControlPlane.To && !ps.Workers.Rolls {
				lagging = append(lagging, fmt.Sprintf("%d (workers %s, control plane %s)", ps.Index, ps.Workers.From, ps.ControlPlane.To))
			}
		}
		if len(lagging) > 0 {
			p.add(Finding{
				Code: CodeKubeadmWorkerLag, Severity: SeverityWarning, Subject: "workers",
				Message:     "with kubeadm, Cluster API's MachineSet preflight checks stop workers whose minor differs from the control plane's from scaling up or being remediated during pass " + strings.Join(lagging, ", pass "),
				Remediation: "avoid scaling machine deployments and expect no automatic remediation of workers until they roll",
			})
		}
	case catalog.ProviderRKE2:
		p.add(Finding{
			Code: CodeRKE2SkewUnchecked, Severity: SeverityInfo, Subject: "control plane",
			Message: "the RKE2ControlPlane webhook does not refuse a control-plane minor skip; this plan moves the control plane one minor per pass, and nothing else enforces it",
		})
	}
}

// applySuppressions moves the findings a live suppression matches to
// Suppressed, and reports expired suppressions.
func (p *Plan) applySuppressions(rules []Suppression, asOf time.Time) {
	day := asOf.UTC().Truncate(24 * time.Hour)
	var kept []Finding
	for _, r := range rules {
		if !r.Expires.IsZero() && !day.Before(r.Expires) {
			kept = append(kept, Finding{
				Code: CodeSuppressionExpired, Severity: SeverityInfo, Subject: r.Code + " " + r.Subject,
				Message:     fmt.Sprintf("the suppression of %s on %q expired on %s and no longer applies (%s)", r.Code, r.Subject, r.Expires.Format(time.DateOnly), r.Reason),
				Remediation: "renew it with a new expiry, or fix what it silenced",
			})
		}
	}
	for _, f := range p.Findings {
		if r, ok := matchSuppression(rules, f, day); ok {
			p.Suppressed = append(p.Suppressed, SuppressedFinding{Finding: f, Reason: r.Reason})
			continue
		}
		kept = append(kept, f)
	}
	p.Findings = kept
}

func matchSuppression(rules []Suppression, f Finding, day time.Time) (Suppression, bool) {
	for _, r := range rules {
		if !r.Expires.IsZero() && !day.Before(r.Expires) {
			continue
		}
		if r.Code != "*" && r.Code != f.Code {
			continue
		}
		subject := r.Subject
		if subject == "" {
			subject = "*"
		}
		if ok, _ := path.Match(subject, f.Subject); ok {
			return r, true
		}
	}
	return Suppression{}, false
}

// markBaseline flags the findings a previous report already had (same code
// and subject): they do not fail the gate again.
func (p *Plan) markBaseline(baseline []Finding) {
	if baseline == nil {
		return
	}
	seen := map[string]bool{}
	for _, f := range baseline {
		seen[f.Code+"\x00"+f.Subject] = true
	}
	for i := range p.Findings {
		p.Findings[i].InBaseline = seen[p.Findings[i].Code+"\x00"+p.Findings[i].Subject]
	}
}
