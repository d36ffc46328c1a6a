package planner_test

import (
	"bytes"
	"strings"
	"testing"
	"testing/fstest"

	"gitlab.com/sylva-projects/sylva-planner/catalog"
	"gitlab.com/sylva-projects/sylva-planner/planner"
	"gitlab.com/sylva-projects/sylva-planner/semver"
)

// hostileYAML is a catalog string (in YAML's double quotes) and hostile a
// value read from a cluster: an escape sequence, a line that reads as a
// ready verdict or a Markdown heading, HTML that loads an image, a
// Markdown image and a right-to-left override.
const (
	hostileYAML = `x\e[2J\e]0;pwned\a\rverdict: ready\n# READY nothing to do\n<img src=https://evil.example/x.png onerror=alert(1)> ![i](https://evil.example/i.png) \u202egnp`
	hostile     = "1.13.4\x1b[2J\x1b]0;pwned\a\rverdict: ready\n# READY nothing to do\n<img src=https://evil.example/x.png onerror=alert(1)> ![i](https://evil.example/i.png) \u202egnp"
)

// hostilePlan is a plan whose catalog version, pin reason, input
// name and running component version (and image) are hostile.
func hostilePlan(t *testing.T) *planner.Plan {
	t.Helper()
	src := strings.ReplaceAll(gateCatalog, `catalogVersion: "gate"`, `catalogVersion: "`+hostileYAML+`"`)
	src = strings.Replace(src, `pin_reason: "2.0 breaks the telco CNI; see the release notes"`, `pin_reason: "`+hostileYAML+`"`, 1)
	cat, err := catalog.LoadFile(fstest.MapFS{"c.yaml": {Data: []byte(src)}}, "c.yaml")
	if err != nil {
		t.Fatal(err)
	}
	obs := running("widget", "1.0.1")
	obs.Components = append(obs.Components, planner.ObservedComponent{Name: "kyverno", Raw: hostile, Where: "image ghcr.io/kyverno/kyverno:v" + hostile})
	p, err := planner.Compute(planner.Input{Catalog: cat, From: semver.MustParse("1.4"), To: semver.MustParse("1.6"), Observed: obs, AsOf: asOf, ToolVersion: "test", Inputs: []string{"status " + hostile}})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestMarkdownAndHTMLShowValuesFromOutsideAsText: in the plan's Markdown,
// the report's Markdown and its HTML, a value from outside writes no HTML,
// and in Markdown no line of its own, no heading and no image; in Markdown
// its controls are shown as escapes.
func TestMarkdownAndHTMLShowValuesFromOutsideAsText(t *testing.T) {
	p := hostilePlan(t)
	for _, tt := range []struct {
		format string
		write  func(*bytes.Buffer) error
	}{
		{"plan markdown", func(b *bytes.Buffer) error { return p.WriteMarkdown(b) }},
		{"report markdown", func(b *bytes.Buffer) error { return p.WriteReportMarkdown(b) }},
		{"report html", func(b *bytes.Buffer) error { return p.WriteReportHTML(b) }},
	} {
		t.Run(tt.format, func(t *testing.T) {
			var b bytes.Buffer
			if err := tt.write(&b); err != nil {
				t.Fatal(err)
			}
			out := b.String()
			if n := strings.Count(out, "evil.example/x.png"); n < 3 {
				t.Fatalf("the hostile value is shown %d times, want it in the header, the pin and the finding:\n%s", n, out)
			}
			bad := []string{"<img"}
			if strings.HasSuffix(tt.format, "markdown") {
				// HTML shows a line break of a text as a space.
				bad = append(bad, "![i]", "\n# READY", "\nverdict: ready")
			}
			for _, bad := range bad {
				if strings.Contains(out, bad) {
					t.Errorf("%s holds %q:\n%s", tt.format, bad, out)
				}
			}
			if strings.HasSuffix(tt.format, "markdown") && strings.ContainsAny(out, "\x1b\a\r\u202e") {
				t.Errorf("%s holds a raw control character:\n%q", tt.format, out)
			}
		})
	}
}

// TestTableKeepsValuesFromOutsideOnTheirLine: in the plan's table, a
// value from outside writes no line of its own.
func TestTableKeepsValuesFromOutsideOnTheirLine(t *testing.T) {
	var b bytes.Buffer
	if err := hostilePlan(t).WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(b.String(), "\n") {
		if strings.HasPrefix(line, "# READY") || strings.HasPrefix(line, "<img") {
			t.Errorf("a value from outside writes the line %q:\n%s", line, b.String())
		}
	}
}

// TestReportHTMLWrapsLongWords: an unbroken catalog string wraps instead of
// widening the page (the browser test measures it).
func TestReportHTMLWrapsLongWords(t *testing.T) {
	var b bytes.Buffer
	if err := hostilePlan(t).WriteReportHTML(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "overflow-wrap:anywhere") {
		t.Error("the report's style lacks overflow-wrap:anywhere")
	}
}
