package planner

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// stepPlan is a plan of n passes from Sylva 1.4 in which the control plane,
// the workers and Longhorn each move one minor per pass, with the gate's
// outcome g.
func stepPlan(n int, g GateOutcome) *Plan {
	p := &Plan{From: Endpoint{Release: "1.4"}, To: Endpoint{Release: "1.6"}, Route: []string{"1.4", "1.6"}, Gate: Gate{Outcome: g, Reason: "1 blocker"}}
	for i := range n {
		from, to := fmt.Sprintf("1.%d", 31+i), fmt.Sprintf("1.%d", 32+i)
		ps := Pass{
			Index: i + 1, Release: "1.6", Trigger: TriggerReconciliation,
			ControlPlane: VersionChange{From: from, To: to, Version: "v" + to + ".4"},
			Workers:      WorkerChange{From: from, To: to, Rolls: true},
			Components:   []ComponentChange{{Name: longhorn, From: fmt.Sprintf("1.%d.0", 8+i), To: fmt.Sprintf("1.%d.0", 9+i)}},
		}
		if i == 0 {
			ps.Trigger = TriggerUpgrade
		}
		p.Passes = append(p.Passes, ps)
	}
	return p
}

// svgDoc is what the tests read back from the SVG.
type svgDoc struct {
	ViewBox    string   `xml:"viewBox,attr"`
	Width      string   `xml:"width,attr"`
	Role       string   `xml:"role,attr"`
	LabelledBy string   `xml:"aria-labelledby,attr"`
	Title      svgTitle `xml:"title"`
	Desc       svgTitle `xml:"desc"`
	Texts      []string `xml:"g>text>tspan"`
	CellTexts  []string `xml:"g>g>text>tspan"`
}

type svgTitle struct {
	ID   string `xml:"id,attr"`
	Text string `xml:",chardata"`
}

// parseSVG decodes s strictly: it must be one well-formed XML document.
func parseSVG(t *testing.T, s string) svgDoc {
	t.Helper()
	var doc svgDoc
	dec := xml.NewDecoder(strings.NewReader(s))
	dec.Strict = true
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("the timeline is not well-formed XML: %v\n%s", err, s)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		t.Fatalf("the timeline has content after </svg>: %v", err)
	}
	return doc
}

func viewBox(t *testing.T, doc svgDoc) (w, h int) {
	t.Helper()
	var x, y int
	if _, err := fmt.Sscanf(doc.ViewBox, "%d %d %d %d", &x, &y, &w, &h); err != nil || x != 0 || y != 0 {
		t.Fatalf("viewBox = %q, want 0 0 W H", doc.ViewBox)
	}
	return w, h
}

func TestTimelineIsAnAccessibleScalableSVG(t *testing.T) {
	p := stepPlan(2, GatePass)
	s := p.timeline().svg()
	doc := parseSVG(t, s)
	if doc.Width != "100%" || doc.Role != "img" {
		t.Errorf("svg width = %q, role = %q; want 100%%, img", doc.Width, doc.Role)
	}
	if got, want := doc.LabelledBy, doc.Title.ID+" "+doc.Desc.ID; got != want || doc.Title.ID == "" {
		t.Errorf("aria-labelledby = %q, want the title's and the description's ids %q", got, want)
	}
	if want := "Timeline of the transition from Sylva 1.4 to 1.6 in 2 passes"; doc.Title.Text != want {
		t.Errorf("title = %q, want %q", doc.Title.Text, want)
	}
	for _, want := range []string{"Pass 1 (Sylva 1.6, chart upgrade)", "control plane 1.31 → 1.32 (v1.32.4), control-plane nodes are replaced and drain", "workers roll 1.32 → 1.33, worker nodes drain", "Longhorn 1.9.0 → 1.10.0"} {
		if !strings.Contains(doc.Desc.Text, want) {
			t.Errorf("description lacks %q:\n%s", want, doc.Desc.Text)
		}
	}
	w, _ := viewBox(t, doc)
	if !strings.Contains(s, fmt.Sprintf("max-width:%dpx", w)) {
		t.Errorf("svg is not capped at its natural width %d: %s", w, s[:200])
	}
	for _, bad := range []string{"href", "<script", "<image", "url(http", "@import"} {
		if strings.Contains(s, bad) {
			t.Errorf("timeline holds %q: it must need no external asset", bad)
		}
	}
}

func TestTimelineIsDeterministic(t *testing.T) {
	a, acss := stepPlan(5, GateFail).timeline().html()
	b, bcss := stepPlan(5, GateFail).timeline().html()
	if a != b || acss != bcss {
		t.Errorf("two renderings of the same plan differ:\n%s", cmp.Diff(string(a)+string(acss), string(b)+string(bcss)))
	}
}

func TestTimelineSizeFollowsThePasses(t *testing.T) {
	tests := []struct {
		name   string
		passes int
		bands  int
	}{
		{"one pass takes the start column and one pass column", 1, 1},
		{"three passes fit one band", 3, 1},
		{"four passes wrap into two bands", 4, 2},
		{"ten passes wrap into three bands", 10, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tl := stepPlan(tt.passes, GatePass).timeline()
			g := tl.geometry()
			if g.bands != tt.bands {
				t.Errorf("bands = %d, want %d (%d columns of %d per band)", g.bands, tt.bands, len(tl.Columns), g.perBand)
			}
			w, h := viewBox(t, parseSVG(t, tl.svg()))
			if w != g.width || h != g.height {
				t.Errorf("viewBox %dx%d, want the geometry's %dx%d", w, h, g.width, g.height)
			}
			if w > tlTargetW {
				t.Errorf("width %d is over the report's content width %d", w, tlTargetW)
			}
			if want := tlLabelW + min(tt.passes+1, g.perBand)*g.colW; w != want {
				t.Errorf("width %d, want %d for %d passes", w, want, tt.passes)
			}
			if h < g.bands*g.bandH {
				t.Errorf("height %d does not hold %d bands of %d", h, g.bands, g.bandH)
			}
		})
	}
}

func TestTimelineCellsHoldTheirText(t *testing.T) {
	p := stepPlan(3, GateFail)
	p.Passes[1].ControlPlane.Version = "v1.33.10+rke2r1"
	p.Passes[2].Release = "1.10-pre"
	tl := p.timeline()
	g := tl.geometry()
	for _, c := range tl.Columns {
		for _, s := range c.Head {
			if w := textW(s) + 2*tlPad; w > g.colW-tlGap {
				t.Errorf("header %q needs %d, column holds %d", s, w, g.colW-tlGap)
			}
		}
		cells := c.Lanes[:]
		if c.Stop != nil {
			cells = append(cells, *c.Stop)
		}
		for _, cell := range cells {
			if h := cellH(len(cell.Lines)); h > max(g.laneH, g.gateH) {
				t.Errorf("cell %q needs height %d, lane holds %d", cell.Lines, h, g.laneH)
			}
			for _, s := range cell.Lines {
				if w := tlStripW + textW(s) + 2*tlPad; w > g.colW-tlGap {
					t.Errorf("cell line %q needs %d, column holds %d", s, w, g.colW-tlGap)
				}
			}
		}
	}
	for _, it := range g.legend {
		if end := it.x + tlSwatchW + tlGap + textW(it.text); end > g.width {
			t.Errorf("legend %q ends at %d, past the width %d", it.text, end, g.width)
		}
	}
}

func TestTimelineCells(t *testing.T) {
	tests := []struct {
		name  string
		pass  Pass
		lane  int
		style cellStyle
		lines []string
	}{
		{"a control-plane step drains control-plane nodes", Pass{ControlPlane: VersionChange{From: "1.31", To: "1.32", Version: "v1.32.9"}}, 0, cellControlPlaneDrain, []string{"1.31 → 1.32", "v1.32.9", "nodes drain"}},
		{"a control plane that stays drains nothing", Pass{ControlPlane: VersionChange{From: "1.33", To: "1.33"}}, 0, cellSame, []string{"stays 1.33"}},
		{"rolling workers drain worker nodes", Pass{Workers: WorkerChange{From: "1.31", To: "1.32", Rolls: true}}, 1, cellWorkerDrain, []string{"1.31 → 1.32", "roll", "nodes drain"}},
		{"paused workers are a dotted box", Pass{Workers: WorkerChange{From: "1.31", To: "1.31", Paused: true}}, 1, cellPaused, []string{"paused on 1.31"}},
		{"workers that stay drain nothing", Pass{Workers: WorkerChange{From: "1.31", To: "1.31"}}, 1, cellSame, []string{"stay on 1.31"}},
		{"a Longhorn step is an upgrade without a drain", Pass{Components: []ComponentChange{{Name: longhorn, From: "1.8.1", To: "1.9.2"}}}, 2, cellUpgrade, []string{"1.8.1 → 1.9.2", "upgrade"}},
		{"Longhorn that stays is plain", Pass{Components: []ComponentChange{{Name: longhorn, From: "1.9.2", To: "1.9.2"}}}, 2, cellSame, []string{"stays 1.9.2"}},
		{"no Longhorn is a dash", Pass{Components: []ComponentChange{{Name: "cluster-api", From: "1", To: "2"}}}, 2, cellSame, []string{"-"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := passColumn(tt.pass, false).Lanes[tt.lane]
			if c.Style != tt.style {
				t.Errorf("style = %d, want %d", c.Style, tt.style)
			}
			if diff := cmp.Diff(tt.lines, c.Lines); diff != "" {
				t.Errorf("lines (-want +got):\n%s", diff)
			}
		})
	}
}

func TestTimelineShowsWhereTheGateStops(t *testing.T) {
	tests := []struct {
		name    string
		outcome GateOutcome
		done    int
		// stop is the pass the gate stops before; 0 for none.
		stop int
		line string
	}{
		{"a failing gate stops before the first pass", GateFail, 0, 1, "STOP: gate fails"},
		{"a holding gate stops before the first pass", GateHeld, 0, 1, "STOP: gate holds"},
		{"a passing gate stops nowhere", GatePass, 0, 0, ""},
		{"a failing gate stops before the next pass of a cluster midway", GateFail, 2, 3, "STOP: gate fails"},
		{"a failing gate stops nowhere once every pass is done", GateFail, 3, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := stepPlan(3, tt.outcome)
			if tt.done > 0 {
				p.Position = &Position{PassKnown: true, PassesDone: tt.done}
			}
			tl := p.timeline()
			got, stops := 0, 0
			for i, c := range tl.Columns {
				if c.Stop == nil {
					continue
				}
				// Column 0 is the start: column i is pass i.
				got, stops = i, stops+1
				if c.Stop.Lines[0] != tt.line {
					t.Errorf("gate cell = %q, want %q", c.Stop.Lines, tt.line)
				}
			}
			if stops > 1 {
				t.Errorf("the gate stops %d times, want at most once", stops)
			}
			if got != tt.stop || tl.Stops != (tt.stop != 0) {
				t.Errorf("gate stops before pass %d (Stops %v), want %d", got, tl.Stops, tt.stop)
			}
			s := tl.svg()
			if bar := strings.Contains(s, `class="gate-bar"`); bar != (tt.stop != 0) {
				t.Errorf("gate bar drawn = %v, want %v", bar, tt.stop != 0)
			}
			for i := 1; i <= tt.done; i++ {
				if head := tl.Columns[i].Head[0]; head != fmt.Sprintf("pass %d · done", i) {
					t.Errorf("column %d head = %q, want it marked done", i, head)
				}
			}
		})
	}
}

func TestTimelineEscapesItsText(t *testing.T) {
	p := stepPlan(1, GateFail)
	p.Passes[0].Release = `<b>"1.6"&`
	p.Gate.Reason = "<script>"
	s := p.timeline().svg()
	parseSVG(t, s)
	if strings.Contains(s, "<b>") || strings.Contains(s, "<script>") {
		t.Errorf("timeline holds unescaped text:\n%s", s)
	}
}

func TestReportWithoutPassesHasNoTimeline(t *testing.T) {
	p := &Plan{From: Endpoint{Release: "1.6"}, To: Endpoint{Release: "1.8"}, Verdict: VerdictUnknown}
	if tl := p.timeline(); tl != nil {
		t.Fatalf("timeline of a plan without passes = %+v, want nil", tl)
	}
	var b bytes.Buffer
	if err := p.WriteReportHTML(&b); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), `class="timeline`) {
		t.Errorf("report of a plan without passes draws a timeline")
	}
}

func TestReportHTMLShowsTheTimelineBeforeThePasses(t *testing.T) {
	var b bytes.Buffer
	if err := stepPlan(2, GatePass).WriteReportHTML(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	const open = `<svg xmlns="http://www.w3.org/2000/svg" class="timeline `
	svg, table := strings.LastIndex(out, open), strings.Index(out, "<h2>Passes</h2>")
	if svg < 0 || table < 0 || svg > table {
		t.Errorf("report: timeline at %d, passes table at %d; want the timeline first", svg, table)
	}
	// Start, pass 1, pass 2: three columns a band, two, one.
	if n := strings.Count(out, open); n != 3 || strings.Count(out, "<svg ") != strings.Count(out, "</svg>") {
		t.Errorf("report holds %d layouts of the timeline, want 3", n)
	}
	ids := map[string]int{}
	for _, m := range regexp.MustCompile(` id="([^"]*)"`).FindAllStringSubmatch(out, -1) {
		if ids[m[1]]++; ids[m[1]] == 2 {
			t.Errorf("the report holds id %q more than once", m[1])
		}
	}
}

func TestCodeSpans(t *testing.T) {
	tests := map[string]string{
		"run `a <b>` then `c`": "run <code>a &lt;b&gt;</code> then <code>c</code>",
		"no code & more":       "no code &amp; more",
		"one ` alone":          "one ` alone",
	}
	for in, want := range tests {
		if got := string(codeSpans(in)); got != want {
			t.Errorf("codeSpans(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestTimelineLegendListsTheMarksItUses(t *testing.T) {
	still := func(p *Plan) *Plan {
		for i := range p.Passes {
			ps := &p.Passes[i]
			ps.ControlPlane.To = ps.ControlPlane.From
			ps.Workers = WorkerChange{From: ps.Workers.From, To: ps.Workers.From}
			ps.Components[0].To = ps.Components[0].From
		}
		return p
	}
	paused := func(p *Plan) *Plan {
		p.Passes[0].Workers = WorkerChange{From: "1.31", To: "1.31", Paused: true}
		return p
	}
	tests := []struct {
		name string
		plan *Plan
		want []string
	}{
		{"rolling passes without a stop", stepPlan(2, GatePass), []string{"control-plane nodes drain", "worker nodes drain (roll)", "Longhorn upgrade"}},
		{"paused workers and a stop", paused(stepPlan(2, GateFail)), []string{"control-plane nodes drain", "worker nodes drain (roll)", "workers paused", "Longhorn upgrade", "the gate stops the plan"}},
		{"passes that change nothing drawn", still(stepPlan(2, GatePass)), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tl := tt.plan.timeline()
			g := tl.geometry()
			var got []string
			for _, it := range g.legend {
				got = append(got, it.text)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("legend (-want +got):\n%s", diff)
			}
			s := tl.svg()
			if want := len(tt.want) > 0; strings.Contains(s, `<g class="legend"`) != want {
				t.Errorf("legend drawn = %v, want %v", !want, want)
			}
			if _, h := viewBox(t, parseSVG(t, s)); h < g.bands*g.bandH {
				t.Errorf("height %d does not hold %d bands of %d", h, g.bands, g.bandH)
			}
		})
	}
}

// TestHTMLHeadlineNeedsNoEmojiFont: the HTML report's headline and title
// say the verdict in words, with no character only an emoji font draws
// (Debian's headless chromium has none and shows an empty box), and
// escape the releases they quote.
func TestHTMLHeadlineNeedsNoEmojiFont(t *testing.T) {
	for _, v := range []Verdict{VerdictReady, VerdictBlocked, VerdictHeld, VerdictUnknown} {
		p := &Plan{From: Endpoint{Release: "1.4"}, To: Endpoint{Release: `<b>"1.6"&`}, Verdict: v}
		headline, title := string(p.htmlHeadline()), p.htmlTitle()
		word := strings.ToUpper(string(v))
		if !strings.Contains(headline, `<span class="verdict">`+word+`</span>`) || !strings.HasPrefix(title, word+" — ") {
			t.Errorf("%s: headline %q, title %q; want the word %s", v, headline, title, word)
		}
		for _, s := range []string{headline, title} {
			for _, r := range s {
				// Latin text, the em dash and the arrow are in every
				// text font; pictographs and dingbats are not.
				if r >= 0x2000 && r != '—' && r != '→' {
					t.Errorf("%s: %q holds %U, which may need an emoji font", v, s, r)
				}
			}
		}
		if strings.Contains(headline, "<b>") {
			t.Errorf("%s: headline holds an unescaped release: %s", v, headline)
		}
		if !strings.Contains(headline, `aria-hidden="true"`) {
			t.Errorf("%s: the headline's mark is not hidden from screen readers: %s", v, headline)
		}
	}
}

// TestTimelineLayoutsReflow: the report holds the timeline in layouts
// from the widest down to one column a band, and its CSS shows, in a
// figure of any width, the widest layout whose text is drawn at tlMinPx or
// more there; only the narrowest layout is ever drawn smaller, in a figure
// narrower than itself.
func TestTimelineLayoutsReflow(t *testing.T) {
	tests := []struct {
		passes     int
		gate       GateOutcome
		noLonghorn bool
		perBand    []int
	}{
		{1, GatePass, false, []int{2, 1}},
		{2, GatePass, false, []int{3, 2, 1}},
		// Without Longhorn's versions, columns are 138 wide: 5 fit the
		// width, and take the 5 columns in 1 band; 4 would take 2
		// bands, as 3 do in less width.
		{4, GatePass, true, []int{5, 3, 2, 1}},
		// The gate's cell makes a column 164 wide: 4 fit the width.
		{4, GateFail, false, []int{4, 3, 2, 1}},
		{10, GateFail, false, []int{4, 3, 2, 1}},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%d passes, gate %s, no Longhorn %v", tt.passes, tt.gate, tt.noLonghorn), func(t *testing.T) {
			p := stepPlan(tt.passes, tt.gate)
			for i := range p.Passes {
				if tt.noLonghorn {
					p.Passes[i].Components = nil
				}
			}
			tl := p.timeline()
			ls := tl.layouts()
			var perBand []int
			for _, g := range ls {
				perBand = append(perBand, g.perBand)
			}
			if diff := cmp.Diff(tt.perBand, perBand); diff != "" {
				t.Fatalf("columns a band of each layout (-want +got):\n%s", diff)
			}
			if ls[0].id != tl.geometry().id {
				t.Errorf("the first layout is not the widest")
			}
			svgs, css := tl.html()
			for i, g := range ls {
				if i > 0 && g.width >= ls[i-1].width {
					t.Errorf("layout %s is %d wide, the one before it %d", g.id, g.width, ls[i-1].width)
				}
				doc := parseSVG(t, tl.svgOf(g))
				if w, h := viewBox(t, doc); w != g.width || h != g.height {
					t.Errorf("layout %s: viewBox %dx%d, want %dx%d", g.id, w, h, g.width, g.height)
				}
				if !strings.Contains(string(svgs), tl.svgOf(g)) {
					t.Errorf("the report lacks layout %s", g.id)
				}
			}
			// Read the CSS back as a browser applies it: the first
			// layout shows, then each rule whose width it is under
			// swaps one layout for the next.
			rules := regexp.MustCompile(`@container timeline \(width < (\d+)px\)\{svg\.([\w-]+)\{display:none\}svg\.([\w-]+)\{display:block\}\}`).FindAllStringSubmatch(string(css), -1)
			if len(rules) != len(ls)-1 || !strings.HasPrefix(string(css), "svg.timeline{display:none}svg."+ls[0].id+"{display:block}") {
				t.Fatalf("CSS:\n%s", css)
			}
			for width := 200; width <= 1000; width++ {
				shown := ls[0].id
				for _, r := range rules {
					below, err := strconv.Atoi(r[1])
					if err != nil {
						t.Fatal(err)
					}
					if width < below && r[2] == shown {
						shown = r[3]
					}
				}
				var g tlGeometry
				for _, l := range ls {
					if l.id == shown {
						g = l
					}
				}
				px := float64(tlFont) * min(1, float64(width)/float64(g.width))
				if px < tlMinPx && (g.id != ls[len(ls)-1].id || width >= g.width) {
					t.Errorf("a figure %dpx wide shows layout %s (%d wide), its text at %.1fpx", width, g.id, g.width, px)
				}
				for _, l := range ls {
					if l.width < g.width {
						continue
					}
					if lpx := float64(tlFont) * min(1, float64(width)/float64(l.width)); lpx >= tlMinPx && l.width > g.width {
						t.Errorf("a figure %dpx wide shows layout %s, but the wider %s draws its text at %.1fpx there", width, g.id, l.id, lpx)
					}
				}
			}
		})
	}
}

// svg draws the timeline's widest layout as an inline SVG document.
func (tl *timeline) svg() string { return tl.svgOf(tl.geometry()) }
