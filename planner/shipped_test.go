package planner_test

import (
	"slices"
	"strings"
	"testing"

	"gitlab.com/sylva-projects/sylva-planner/catalog"
	"gitlab.com/sylva-projects/sylva-planner/internal/catalogtest"
	"gitlab.com/sylva-projects/sylva-planner/planner"
	"gitlab.com/sylva-projects/sylva-planner/semver"
)

// TestTheUpgradesSylvaShipsAreReady: the y-1 upgrades Sylva's releases
// ship, planned on the embedded catalog for the day the target was tagged
// (or today), are ready; what the target itself ships past its end of life
// warns and names the newer release that fixes it.
func TestTheUpgradesSylvaShipsAreReady(t *testing.T) {
	tests := []struct {
		name, from, to, asOf string
		// eolWarning is a component the target ships past its end of
		// life: a warning naming the release that ships a supported one,
		// else the newer releases whose version of it the catalog does
		// not list.
		eolWarning, fixedIn, unlisted string
	}{
		{"1.3 to 1.4 today", "1.3", "1.4", "2026-11-30", "external-secrets", "", "1.5, 1.6, 1.7"},
		{"1.2 to 1.3 on the day 1.3.10 was tagged", "1.2", "1.3", "2025-03-28", "cert-manager", "Sylva 1.4 (in development)", ""},
		{"1.1 to 1.2 on the day 1.2.1 was tagged", "1.1", "1.2", "2024-11-28", "", "", ""},
		{"1.2 to 1.4 through 1.3 on the day of main's commit", "1.2", "1.4", "2025-08-04", "external-secrets", "", "1.5, 1.6, 1.7"},
		{"1.4 to 1.6 today", "1.4", "1.6", "2026-11-30", "", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := planner.Compute(planner.Input{Catalog: catalogtest.Default(t), From: semver.MustParse(tt.from), To: semver.MustParse(tt.to), AsOf: day(tt.asOf)})
			if err != nil {
				t.Fatal(err)
			}
			if p.Verdict != planner.VerdictReady {
				t.Errorf("Compute(%s → %s as of %s) verdict = %s, want ready; findings %+v", tt.from, tt.to, tt.asOf, p.Verdict, p.Findings)
			}
			for _, f := range p.Findings {
				if f.Severity == planner.SeverityBlocker {
					t.Errorf("blocker %s (%s): %s", f.Code, f.Subject, f.Message)
				}
			}
			if tt.eolWarning == "" {
				return
			}
			i := slices.IndexFunc(p.Findings, func(f planner.Finding) bool {
				return f.Code == planner.CodeEOLComponent && f.Subject == tt.eolWarning
			})
			if i < 0 {
				t.Fatalf("no %s finding for %s; findings %+v", planner.CodeEOLComponent, tt.eolWarning, p.Findings)
			}
			f := p.Findings[i]
			if f.Severity != planner.SeverityWarning || !strings.Contains(f.Message, "which Sylva "+tt.to+" ships") {
				t.Errorf("finding %+v: want a warning saying Sylva %s ships it", f, tt.to)
			}
			if tt.fixedIn != "" && !strings.Contains(f.Remediation, "plan the upgrade to "+tt.fixedIn) {
				t.Errorf("remediation %q does not name %s", f.Remediation, tt.fixedIn)
			}
			if want := "the catalog does not list the " + tt.eolWarning + " of Sylva " + tt.unlisted + ":"; tt.fixedIn == "" && !strings.HasPrefix(f.Remediation, want) {
				t.Errorf("remediation %q: want it to start %q", f.Remediation, want)
			}
		})
	}
}

// TestAShippedComponentNoNewerReleaseFixes: when every newer release of
// the catalog lists a version of the component past its end of life too,
// the warning says no newer release fixes it yet.
func TestAShippedComponentNoNewerReleaseFixes(t *testing.T) {
	cat := *catalogtest.Default(t) // shared: changed on copies
	cat.Releases = slices.Clone(cat.Releases)
	for i := range cat.Releases {
		r := &cat.Releases[i]
		if r.Release.Compare(semver.MustParse("1.4")) > 0 {
			r.Components = append(slices.Clone(r.Components), catalog.ReleaseComponent{Name: "external-secrets", Version: semver.MustParse("0.16.2")})
		}
	}
	p, err := planner.Compute(planner.Input{Catalog: &cat, From: semver.MustParse("1.3"), To: semver.MustParse("1.4"), AsOf: day("2026-11-30")})
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(p.Findings, func(f planner.Finding) bool {
		return f.Code == planner.CodeEOLComponent && f.Subject == "external-secrets"
	})
	if i < 0 {
		t.Fatalf("no %s finding for external-secrets; findings %+v", planner.CodeEOLComponent, p.Findings)
	}
	if r := p.Findings[i].Remediation; !strings.HasPrefix(r, "no newer Sylva release of the catalog ships a supported external-secrets yet") {
		t.Errorf("remediation %q: want it to say no newer release fixes it", r)
	}
}

// TestARunningComponentPastEndOfLifeStillBlocks: a component the cluster
// runs that the target does not ship is the operator's to upgrade, so its
// end of life stays a blocker whose fix is that upgrade.
func TestARunningComponentPastEndOfLifeStillBlocks(t *testing.T) {
	p, err := planner.Compute(planner.Input{Catalog: catalogtest.Default(t), From: semver.MustParse("1.4"), To: semver.MustParse("1.6"), AsOf: day("2026-11-30"), Observed: running("kyverno", "1.13.4")})
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(p.Findings, func(f planner.Finding) bool { return f.Code == planner.CodeEOLComponent && f.Subject == "kyverno" })
	if i < 0 {
		t.Fatalf("no end-of-life finding for kyverno: %+v", p.Findings)
	}
	if f := p.Findings[i]; f.Severity != planner.SeverityBlocker || f.Class != planner.ClassActionable || !strings.HasPrefix(f.Remediation, "upgrade kyverno to") {
		t.Errorf("kyverno finding = %+v, want an actionable blocker naming the upgrade", f)
	}
}

// TestAThinReleaseSaysOnHowManyComponentsItIsAssessed: 1.6 lists two
// components; the plan says so rather than reading as fully assessed.
func TestAThinReleaseSaysOnHowManyComponentsItIsAssessed(t *testing.T) {
	p, err := planner.Compute(planner.Input{Catalog: catalogtest.Default(t), From: semver.MustParse("1.4"), To: semver.MustParse("1.6"), AsOf: asOf})
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(p.Findings, func(f planner.Finding) bool { return f.Code == planner.CodeThinRelease })
	if i < 0 || !strings.Contains(p.Findings[i].Message, "assessed on 2 components (cluster-api, longhorn)") || !strings.Contains(p.Findings[i].Message, "calico, cert-manager, external-secrets, flux") {
		t.Errorf("findings %+v: want %s saying 1.6 is assessed on 2 components and naming what 1.4 ships beyond them", p.Findings, planner.CodeThinRelease)
	}
	j := slices.IndexFunc(p.Checks, func(c planner.Check) bool { return c.Name == "component-compatibility" })
	if j < 0 || !strings.Contains(p.Checks[j].Detail, "assessed on 2 components") {
		t.Errorf("checks %+v: want component-compatibility assessed on 2 components", p.Checks)
	}
	// 1.3 → 1.4: 1.4 lists every component 1.3 ships.
	p, err = planner.Compute(planner.Input{Catalog: catalogtest.Default(t), From: semver.MustParse("1.3"), To: semver.MustParse("1.4"), AsOf: asOf})
	if err != nil {
		t.Fatal(err)
	}
	if slices.ContainsFunc(p.Findings, func(f planner.Finding) bool { return f.Code == planner.CodeThinRelease }) {
		t.Errorf("1.3 → 1.4: %s reported, but 1.4 lists every component 1.3 ships", planner.CodeThinRelease)
	}
}
