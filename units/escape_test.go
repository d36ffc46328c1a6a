package units_test

import (
	"strings"
	"testing"

	"gitlab.com/sylva-projects/sylva-planner/internal/mdtest"
)

// hostileValues give units (whose names the values check) metadata and
// texts with what a values file may hold: a line that reads as a Markdown
// heading, a code fence, HTML that loads an image, a Markdown image,
// backticks and a pipe; and an escape sequence.
const hostileValues = `units:
  bad:
    info: {transitional-unit: "from-1.4\e[2J\n# READY nothing to do\n` + "```" + `\n<img src=https://evil.example/x.png onerror=alert(1)> ![i](https://evil.example/i.png) | x"}
  job:
    one_shot: true
    info: {description: "runs when upgrading from Sylva 1.5\n# READY ` + "`` ```" + ` <img src=https://evil.example/x.png>"}
  old:
    info: {transitional-unit: from-1.4}
  app:
    depends_on: {old: '{{ if .Values.x }}true{{ end }}` + "```" + `<img src=https://evil.example/x.png>'}
`

// TestAuditMarkdownShowsValuesAsText: in the prune audit's Markdown,
// metadata or a text of the values writes no line, heading, image or HTML
// of its own, cannot close the code block of the metadata to add, and its
// controls are shown as escapes.
func TestAuditMarkdownShowsValuesAsText(t *testing.T) {
	r := auditYAML(t, "1.7", hostileValues)
	var b strings.Builder
	if err := r.WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if n := strings.Count(out, "evil.example/x.png"); n < 2 {
		t.Fatalf("the hostile values are shown %d times, want at least 2:\n%s", n, out)
	}
	for _, bad := range []string{"<img", "![i]"} {
		if strings.Contains(mdtest.Markup(out), bad) {
			t.Errorf("the Markdown holds %q outside code:\n%s", bad, out)
		}
	}
	for _, bad := range []string{"\n# READY", "\n```\n<img", "\x1b"} {
		if strings.Contains(out, bad) {
			t.Errorf("the Markdown holds %q:\n%s", bad, out)
		}
	}
	// The metadata to add is one code block, between two fences of the
	// same length; no line inside it is a fence as long.
	_, block, ok := strings.Cut(out, "<summary>Metadata to add to untracked units</summary>\n\n")
	if !ok {
		t.Fatalf("no metadata to add:\n%s", out)
	}
	lines := strings.Split(block, "\n")
	fence := strings.TrimSuffix(lines[0], "yaml")
	for i, l := range lines[1:] {
		if strings.HasPrefix(strings.TrimSpace(l), fence) {
			if l != fence || lines[i+2] != "" || lines[i+3] != "</details>" {
				t.Errorf("the code block is closed early by %q:\n%s", l, block)
			}
			break
		}
	}
}

// TestAuditTableKeepsValuesOnTheirLine: in the prune audit's table,
// metadata or a text of the values writes no line of its own.
func TestAuditTableKeepsValuesOnTheirLine(t *testing.T) {
	var b strings.Builder
	if err := auditYAML(t, "1.7", hostileValues).WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(b.String(), "\n") {
		if strings.HasPrefix(line, "# READY") || strings.HasPrefix(line, "<img") || strings.HasPrefix(line, "```") {
			t.Errorf("a value writes the line %q:\n%s", line, b.String())
		}
	}
}
