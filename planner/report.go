package planner

import (
	"bufio"
	"fmt"
	"html/template"
	"io"
	"strings"
	"sync"

	"gitlab.com/sylva-projects/sylva-planner/cell"
)

// ReportGroup is one section of the nightly report.
type ReportGroup struct {
	Title    string
	Findings []Finding
}

// Groups sorts the findings into the report's sections: action needed
// (actionable blockers), waiting on upstream, pinned (held by us), then
// everything else. Empty groups are left out.
func (p *Plan) Groups() []ReportGroup {
	groups := []ReportGroup{{Title: "Action needed"}, {Title: "Waiting on upstream"}, {Title: "Pinned (held by us)"}, {Title: "Other findings"}}
	for _, f := range p.Findings {
		i := 3
		if f.Severity == SeverityBlocker {
			switch f.Class {
			case ClassWaiting:
				i = 1
			case ClassPinned:
				i = 2
			case ClassActionable:
				i = 0
			}
		}
		groups[i].Findings = append(groups[i].Findings, f)
	}
	out := groups[:0]
	for _, g := range groups {
		if len(g.Findings) > 0 {
			out = append(out, g)
		}
	}
	return out
}

// Headline is the report's first line for the verdict, as the Markdown
// report writes it: an emoji, the verdict in capitals, and what it means.
func (p *Plan) Headline() string {
	word, rest := p.headline()
	mark, ok := map[Verdict]string{VerdictReady: "✅", VerdictBlocked: "⛔", VerdictHeld: "⏸️", VerdictUnknown: "❔"}[p.Verdict]
	if !ok {
		return word
	}
	return mark + " " + word + " — " + rest
}

// headline is the headline's verdict word and what follows it; rest is
// empty for a verdict the report does not know.
func (p *Plan) headline() (word, rest string) {
	switch p.Verdict {
	case VerdictReady:
		return "READY", fmt.Sprintf("Sylva %s → %s", p.From.Release, p.To.Release)
	case VerdictBlocked:
		return "BLOCKED", fmt.Sprintf("act: Sylva %s → %s", p.From.Release, p.To.Release)
	case VerdictHeld:
		return "HELD", fmt.Sprintf("%s not yet upgradable (from %s)", p.To.Release, p.From.Release)
	case VerdictUnknown:
		return "UNKNOWN", fmt.Sprintf("Sylva %s → %s could not be judged completely", p.From.Release, p.To.Release)
	}
	return string(p.Verdict), ""
}

// verdictMarks are the HTML headline's marks: small line drawings in the
// text's colour, so that the headline needs no emoji font (a page on a
// server without one would show an emoji as an empty box). The verdict is
// said by the word after the mark; the mark is decoration.
var verdictMarks = map[Verdict]string{
	VerdictReady:   `<circle cx="12" cy="12" r="10"/><path d="M7 12.5l3.5 3.5L17 9"/>`,
	VerdictBlocked: `<circle cx="12" cy="12" r="10"/><path d="M7 12h10"/>`,
	VerdictHeld:    `<circle cx="12" cy="12" r="10"/><path d="M10 8v8M14 8v8"/>`,
	VerdictUnknown: `<circle cx="12" cy="12" r="10"/><path d="M9.3 9.6a2.8 2.8 0 1 1 3.9 2.6c-.8.3-1.2 1-1.2 1.8v.4M12 17.4v.1"/>`,
}

// htmlHeadline is the HTML report's headline: the verdict's mark, then
// the verdict word and what follows it as text.
func (p *Plan) htmlHeadline() template.HTML {
	word, rest := p.headline()
	var b strings.Builder
	if mark, ok := verdictMarks[p.Verdict]; ok {
		b.WriteString(`<svg class="mark" viewBox="0 0 24 24" width="1em" height="1em" fill="none" stroke="currentColor" stroke-width="2.5" stroke-linecap="round" stroke-linejoin="round" aria-hidden="true" focusable="false">` + mark + `</svg>`)
	}
	b.WriteString(`<span class="verdict">` + template.HTMLEscapeString(word) + `</span>`)
	if rest != "" {
		b.WriteString(" — " + template.HTMLEscapeString(rest))
	}
	return template.HTML(b.String()) //nolint:gosec // the words are escaped above; the marks are constants
}

// htmlTitle is the HTML report's title: the headline without its mark.
func (p *Plan) htmlTitle() string {
	if word, rest := p.headline(); rest != "" {
		return word + " — " + rest
	}
	return string(p.Verdict)
}

// WriteReportMarkdown writes the nightly report as Markdown, every string
// from outside escaped as WriteMarkdown escapes it.
func (p *Plan) WriteReportMarkdown(w io.Writer) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "# %s\n\n", cell.Markdown(p.Headline()))
	// Each header line ends in a hard line break, so that Markdown does
	// not run them together.
	fmt.Fprintf(bw, "%s\n\n", markdownLines(p.header(), "  \n"))
	if p.Position != nil {
		fmt.Fprintf(bw, "**Cluster:** %s\n\n", cell.MarkdownSpans(p.Position.Summary))
	}
	fmt.Fprintf(bw, "Score %d · %s\n\n", p.Score, cell.MarkdownSpans(p.Summary.Line))
	if g := p.gateLine(); g != "" {
		fmt.Fprintf(bw, "**%s**\n\n", cell.MarkdownSpans(g))
	}
	for _, g := range p.Groups() {
		fmt.Fprintf(bw, "## %s\n\n", g.Title)
		for _, f := range g.Findings {
			fmt.Fprintf(bw, "- %s %s (%s): %s", tag(f), cell.MarkdownSpans("`"+f.Code+"`"), cell.Markdown(f.Subject), cell.MarkdownSpans(f.Message))
			if f.Remediation != "" {
				fmt.Fprintf(bw, " — %s", cell.MarkdownSpans(f.Remediation))
			}
			if f.InBaseline {
				fmt.Fprintf(bw, " _(%s)_", inBaselineNote)
			}
			fmt.Fprintln(bw)
		}
		fmt.Fprintln(bw)
	}
	if rows := p.passRows(); len(rows) > 0 {
		fmt.Fprint(bw, "## Passes\n\n| pass | release | control plane | workers | Longhorn |\n|---|---|---|---|---|\n")
		for _, r := range rows {
			fmt.Fprintf(bw, "| %s | %s | %s | %s | %s |\n", cell.Markdown(r[0]), cell.Markdown(r[1]), cell.Markdown(r[2]), cell.Markdown(r[3]), cell.Markdown(r[4]))
		}
		fmt.Fprintln(bw)
	}
	if len(p.Suppressed) > 0 {
		fmt.Fprint(bw, "## Suppressed\n\n")
		for _, s := range p.Suppressed {
			fmt.Fprintf(bw, "- %s (%s): %s — suppressed: %s\n", cell.MarkdownSpans("`"+s.Code+"`"), cell.Markdown(s.Subject), cell.MarkdownSpans(s.Message), cell.MarkdownSpans(s.Reason))
		}
		fmt.Fprintln(bw)
	}
	fmt.Fprint(bw, "## Checks\n\n| check | status | detail |\n|---|---|---|\n")
	for _, c := range p.Checks {
		fmt.Fprintf(bw, "| %s | %s | %s |\n", cell.Markdown(c.Name), c.Status, cell.MarkdownCell(c.Detail))
	}
	fmt.Fprintf(bw, "\n**Next:** %s\n", cell.MarkdownSpans(p.Next))
	return bw.Flush()
}

func tag(f Finding) string {
	t := strings.ToUpper(string(f.Severity))
	if f.Class != "" {
		t += " [" + strings.ToUpper(string(f.Class)) + "]"
	}
	return t
}

// codeSpans is text s as HTML with each `span` of it set in <code>, as the
// Markdown report shows it; everything else is escaped, and a backtick
// without its pair stays a backtick.
func codeSpans(s string) template.HTML {
	parts := strings.Split(s, "`")
	var b strings.Builder
	for i, part := range parts {
		switch {
		case i%2 == 1 && i < len(parts)-1:
			b.WriteString("<code>" + template.HTMLEscapeString(part) + "</code>")
		case i%2 == 1:
			b.WriteString("`" + template.HTMLEscapeString(part))
		default:
			b.WriteString(template.HTMLEscapeString(part))
		}
	}
	return template.HTML(b.String()) //nolint:gosec // every part is escaped above; only <code> is added
}

// reportHTML is parsed on first use, not at the start of every command.
var reportHTML = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("report").Funcs(template.FuncMap{"tag": tag, "lower": strings.ToLower, "code": codeSpans}).Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>
body{font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;background:#f5f6f8;color:#1d2330}
main{max-width:960px;margin:0 auto;padding:24px}
header{border-radius:10px;padding:18px 22px;color:#fff;margin-bottom:18px}
header.ready{background:#1f8a4c}header.blocked{background:#b42318}header.held{background:#8a6d1f}header.unknown{background:#4b5563}
header h1{margin:0 0 6px;font-size:24px}h1 .mark{vertical-align:-.15em;margin-right:.35em}h1 .verdict{letter-spacing:.03em}header p{margin:0;opacity:.92}
section{background:#fff;border-radius:10px;padding:14px 20px;margin-bottom:14px;box-shadow:0 1px 2px rgba(0,0,0,.06)}
h2{font-size:17px;margin:4px 0 10px}
ul{padding-left:0;list-style:none;margin:0}li{padding:8px 0;border-top:1px solid #eceef2}li:first-child{border-top:0}
.tag{display:inline-block;font-size:12px;font-weight:600;border-radius:4px;padding:1px 6px;margin-right:6px;background:#e5e7eb}
.blocker{background:#fde2e1;color:#8a1c12}.warning{background:#fdf1d8;color:#7a5406}.info{background:#e0ecfd;color:#1d4f91}
code{background:#f0f1f4;border-radius:4px;padding:0 4px}.fix{color:#3b4252;font-size:14px;margin-top:2px}
table{border-collapse:collapse;width:100%;font-size:14px}th,td{text-align:left;padding:6px 8px;border-top:1px solid #eceef2}
main{overflow-wrap:anywhere}
figure{margin:0}figcaption{font-size:13px;color:#3b4252;margin-top:8px}
{{with .TimelineCSS}}figure.timelines{container:timeline/inline-size}
{{.}}
{{end}}@media (max-width:640px){main{padding:12px}header{padding:14px 16px}section{padding:12px 14px}}
@media print{body{background:#fff}main{max-width:none;padding:0}header.ready,header.blocked,header.held,header.unknown{background:#fff;color:#000;border:2px solid #000}section{box-shadow:none;border:1px solid #999;break-inside:avoid}}
</style>
</head>
<body><main>
<header class="{{.Plan.Verdict}}"><h1>{{.Headline}}</h1><p>{{range $i, $l := .Header}}{{if $i}}<br>{{end}}{{$l}}{{end}}</p>{{with .Plan.Position}}<p>Cluster: {{code .Summary}}</p>{{end}}<p>Score {{.Plan.Score}} · {{.Plan.Summary.Line}}</p>{{with .Gate}}<p><strong>{{.}}</strong></p>{{end}}</header>
{{range .Plan.Groups}}<section><h2>{{.Title}}</h2><ul>
{{range .Findings}}<li><span class="tag {{.Severity}}">{{tag .}}</span><code>{{.Code}}</code> ({{.Subject}}): {{code .Message}}{{if .InBaseline}} <em>({{$.InBaseline}})</em>{{end}}{{if .Remediation}}<div class="fix">{{code .Remediation}}</div>{{end}}</li>
{{end}}</ul></section>
{{end}}{{with .Timeline}}<section><h2>Timeline</h2><figure class="timelines">
{{.}}<figcaption>Each column is a reconciliation of the sylva-units HelmRelease, left to right; hatched boxes are node rollouts, where nodes drain.</figcaption></figure></section>
{{end}}{{if .Plan.Passes}}<section><h2>Passes</h2><table><tr><th>pass</th><th>release</th><th>control plane</th><th>workers</th><th>Longhorn</th></tr>
{{range .Rows}}<tr><td>{{index . 0}}</td><td>{{index . 1}}</td><td>{{index . 2}}</td><td>{{index . 3}}</td><td>{{index . 4}}</td></tr>
{{end}}</table></section>
{{end}}{{if .Plan.Suppressed}}<section><h2>Suppressed</h2><ul>{{range .Plan.Suppressed}}<li><code>{{.Code}}</code> ({{.Subject}}): {{code .Message}}<div class="fix">suppressed: {{code .Reason}}</div></li>{{end}}</ul></section>
{{end}}<section><h2>Checks</h2><table><tr><th>check</th><th>status</th><th>detail</th></tr>
{{range .Plan.Checks}}<tr><td>{{.Name}}</td><td>{{.Status}}</td><td>{{code .Detail}}</td></tr>
{{end}}</table></section>
<section><h2>Next</h2><p>{{code .Plan.Next}}</p></section>
</main></body></html>
`))
})

// passRows are the passes as the reports show them: pass (marked done as
// in plan's table), release, control plane, workers, Longhorn.
func (p *Plan) passRows() [][]string {
	var rows [][]string
	for _, ps := range p.Passes {
		rows = append(rows, []string{p.passCell(ps), ps.Release, cpCell(ps.ControlPlane), workerCell(ps.Workers), componentCell(ps, longhorn)})
	}
	return rows
}

// WriteReportHTML writes the nightly report as one self-contained HTML
// page: no script, no external asset. Its timeline of the passes is
// inline SVG, in a layout for each width (see timeline).
func (p *Plan) WriteReportHTML(w io.Writer) error {
	var svg template.HTML
	var css template.CSS
	if tl := p.timeline(); tl != nil {
		svg, css = tl.html()
	}
	return reportHTML().Execute(w, struct {
		Plan       *Plan
		Title      string
		Headline   template.HTML
		Header     []string
		Gate       string
		InBaseline string
		Rows       [][]string
		Timeline   template.HTML
		// TimelineCSS picks the timeline's layout for the page's width.
		TimelineCSS template.CSS
	}{p, p.htmlTitle(), p.htmlHeadline(), strings.Split(p.header(), "\n"), p.gateLine(), inBaselineNote, p.passRows(), svg, css})
}
