package units_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"gitlab.com/sylva-projects/sylva-planner/catalog"
	"gitlab.com/sylva-projects/sylva-planner/envelope"
	"gitlab.com/sylva-projects/sylva-planner/internal/golden"
	"gitlab.com/sylva-projects/sylva-planner/semver"
	"gitlab.com/sylva-projects/sylva-planner/units"
)

// fixtureFiles are the shared fixtures, named as a user at the repository
// root would name them.
var fixtureFiles = []string{"testdata/sylva-units-values.yaml", "testdata/management.values.yaml"}

func readFixtures(t testing.TB, names ...string) []units.File {
	t.Helper()
	var files []units.File
	for _, n := range names {
		data, err := os.ReadFile(filepath.Join("..", filepath.FromSlash(n)))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, units.File{Name: n, Data: data})
	}
	return files
}

func policy(t testing.TB) (units.Policy, string) {
	t.Helper()
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	var p units.Policy
	for _, r := range cat.Releases {
		p.Releases = append(p.Releases, units.PolicyRelease{Release: r.Release, UpgradeFrom: r.UpgradeFrom})
	}
	return p, cat.Version
}

func auditFixture(t testing.TB, release string) *units.Report {
	t.Helper()
	v, err := units.Parse(readFixtures(t, fixtureFiles...)...)
	if err != nil {
		t.Fatalf("Parse(fixtures) error = %v", err)
	}
	p, catVersion := policy(t)
	r, err := units.Audit(units.AuditInput{
		Values: v, Release: semver.MustParse(release), Policy: p,
		ToolVersion: "test", CatalogVersion: catVersion, AsOf: time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC), Files: fixtureFiles,
	})
	if err != nil {
		t.Fatalf("Audit(%s) error = %v", release, err)
	}
	return r
}

func TestAuditGoldenOutputsPerRelease(t *testing.T) {
	for _, rel := range []string{"1.5", "1.6", "1.7", "1.8"} {
		for _, f := range []struct {
			ext   string
			write func(*units.Report, *bytes.Buffer) error
		}{
			{"json", func(r *units.Report, b *bytes.Buffer) error { return envelope.WriteJSON(b, r.Document()) }},
			{"txt", func(r *units.Report, b *bytes.Buffer) error { return r.WriteTable(b) }},
			{"md", func(r *units.Report, b *bytes.Buffer) error { return r.WriteMarkdown(b) }},
		} {
			t.Run(rel+"."+f.ext, func(t *testing.T) {
				var first, second bytes.Buffer
				if err := f.write(auditFixture(t, rel), &first); err != nil {
					t.Fatal(err)
				}
				if err := f.write(auditFixture(t, rel), &second); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(first.Bytes(), second.Bytes()) {
					t.Fatalf("two audits of the same input differ")
				}
				golden.Assert(t, first.Bytes(), "audit/release-"+rel+"."+f.ext)
			})
		}
	}
}

// The table and the Markdown sum the unresolved entries up in one line;
// with ShowUnresolved (--show-unresolved) they list each, the table by
// unit, the Markdown with each template.
func TestAuditListsUnresolvedEntriesOnlyWhenAsked(t *testing.T) {
	r := auditFixture(t, "1.7")
	r.ShowUnresolved = true
	for _, f := range []struct {
		ext   string
		write func(*units.Report, *bytes.Buffer) error
	}{
		{"txt", func(r *units.Report, b *bytes.Buffer) error { return r.WriteTable(b) }},
		{"md", func(r *units.Report, b *bytes.Buffer) error { return r.WriteMarkdown(b) }},
	} {
		t.Run(f.ext, func(t *testing.T) {
			var b bytes.Buffer
			if err := f.write(r, &b); err != nil {
				t.Fatal(err)
			}
			golden.Assert(t, b.Bytes(), "audit/release-1.7-show-unresolved."+f.ext)
		})
	}
}
