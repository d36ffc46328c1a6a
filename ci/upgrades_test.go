package ci

import (
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"gitlab.com/sylva-projects/sylva-planner/catalog"
	"gitlab.com/sylva-projects/sylva-planner/internal/sylvacore"
	"gitlab.com/sylva-projects/sylva-planner/planner"
	"gitlab.com/sylva-projects/sylva-planner/semver"
)

// TestEveryUpgradeSylvaCoreCIRunsIsReady reads the upgrade scenarios of
// .gitlab/ci in every ref of the bundle (MGMT_INITIAL_REVISION to the
// ref's own release) and plans each on the embedded catalog, as of the
// date of the ref's commit (a tag's date for a tag): each must be ready.
// These are the upgrades Sylva itself ships and tests; a catalog fact that
// blocks one is a data error.
func TestEveryUpgradeSylvaCoreCIRunsIsReady(t *testing.T) {
	if os.Getenv(sylvacore.EnvDir) != "" {
		t.Skip("needs the bundle's refs")
	}
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	repo := sylvacore.Repo(t)
	seen := 0
	for _, ref := range sylvacore.BundleRefs {
		tree := sylvacore.At(t, ref)
		to, ok := refRelease(cat, ref)
		if !ok {
			t.Fatalf("ref %s: no release of the catalog for it", ref)
		}
		out, err := exec.Command("git", "-C", repo, "log", "-1", "--format=%cs", tree.Commit).Output()
		if err != nil {
			t.Fatalf("ref %s: date of %s: %v", ref, tree.Commit, err)
		}
		asOf, err := time.Parse(time.DateOnly, strings.TrimSpace(string(out)))
		if err != nil {
			t.Fatal(err)
		}
		tpls, err := ReadTemplates(os.DirFS(tree.Dir))
		if err != nil {
			t.Fatalf("ref %s: %v", ref, err)
		}
		for _, s := range tpls.UpgradeScenarios() {
			seen++
			t.Run(ref+"/"+s.Scenario, func(t *testing.T) {
				p, err := planner.Compute(planner.Input{Catalog: cat, From: s.From, To: to, AsOf: asOf})
				if err != nil {
					t.Fatalf("plan %s → %s: %v", s.From, to, err)
				}
				if p.Verdict != planner.VerdictReady {
					var why []string
					for _, f := range p.Findings {
						if f.Severity == planner.SeverityBlocker {
							why = append(why, f.Code+": "+f.Message)
						}
					}
					t.Errorf("plan %s → %s as of %s (CI scenario %s of %s, %s) verdict = %s, want ready: %s",
						s.From, to, asOf.Format(time.DateOnly), s.Scenario, ref, s.File, p.Verdict, strings.Join(why, "; "))
				}
			})
		}
	}
	if seen == 0 {
		t.Fatal("no upgrade scenario found in the bundle's refs")
	}
}

// refRelease is the Sylva release of a bundle ref: a tag's or a release
// branch's minor, or the release the catalog imported from that ref (main).
func refRelease(cat *catalog.Catalog, ref string) (semver.Version, bool) {
	if v, ok := revisionRelease(ref); ok {
		return v, true
	}
	for _, r := range cat.Releases {
		if r.ImportedFrom != nil && r.ImportedFrom.Ref == ref {
			return r.Release, true
		}
	}
	return semver.Version{}, false
}
