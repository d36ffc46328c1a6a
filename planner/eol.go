package planner

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"gitlab.com/sylva-projects/sylva-planner/catalog"
	"gitlab.com/sylva-projects/sylva-planner/semver"
)

// Stable finding codes of end of life, and how far ahead it warns.
const (
	CodeEOLComponent   = "eol-component"
	CodeEOLApproaching = "eol-approaching"
	CodeEOLKubernetes  = "eol-kubernetes"
	eolWarningDays     = 90
)

// eolFindings flags component versions the plan ends on whose end of life
// has passed (a blocker from 00:00 UTC of that day) or comes within 90 days
// (a warning), and the end of life of the target's Kubernetes minor.
func (p *Plan) eolFindings(cat *catalog.Catalog, final map[string]semver.Version, asOf time.Time) {
	day := asOf.UTC().Truncate(24 * time.Hour)
	soon := day.AddDate(0, 0, eolWarningDays)
	names := make([]string, 0, len(final))
	for n := range final {
		names = append(names, n)
	}
	slices.Sort(names)
	target, _ := cat.Release(semver.MustParse(p.To.Release))
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
	k8s := semver.MustParse(p.To.Kubernetes)
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
func shippedEOL(cat *catalog.Catalog, target *catalog.Release, code, name string, v semver.Version, eol string, day time.Time, when string) Finding {
	f := Finding{
		Code: code, Severity: SeverityWarning, Subject: name,
		Message: fmt.Sprintf("%s %s, which Sylva %s ships, %s %s", name, v, target.Release, when, eol),
	}
	comp, _ := cat.Component(name)
	// The newer releases the catalog lists no version of name for: they
	// may ship a supported one.
	var unlisted []string
	for _, r := range cat.Releases {
		if r.Release.Compare(target.Release) <= 0 {
			continue
		}
		rc, ok := r.Component(name)
		if !ok {
			unlisted = append(unlisted, r.Release.String())
			continue
		}
		if rc.Version.Compare(v) <= 0 {
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
	if len(unlisted) > 0 {
		f.Remediation = fmt.Sprintf("the catalog does not list the %s of Sylva %s: check which they ship (sylva-planner catalog import reads it from sylva-core) and plan the upgrade to the first that ships a supported one (the version a release ships cannot be changed inside it)", name, strings.Join(unlisted, ", "))
		return f
	}
	f.Remediation = fmt.Sprintf("no newer Sylva release of the catalog ships a supported %s yet; plan the next release when it does (the version a release ships cannot be changed inside it)", name)
	return f
}

func newerNotEOL(comp *catalog.Component, v semver.Version, day time.Time) (semver.Version, bool) {
	for _, cv := range comp.Versions {
		if cv.Version.Compare(v) > 0 && !cv.Matches(v) && (cv.EndOfLife.IsZero() || day.Before(cv.EndOfLife.Time)) {
			return cv.Version, true
		}
	}
	return semver.Version{}, false
}
