package planner

import (
	"fmt"
	"html"
	"html/template"
	"strings"
	texttemplate "text/template"
	"unicode/utf8"

	"gitlab.com/sylva-projects/sylva-planner/cell"
)

// The timeline is the HTML report's picture of the passes: one column per
// pass (after a column for the start), one lane each for the control
// plane, the workers and Longhorn, and a gate lane when the gate stops the
// plan. Columns wrap into bands so that the picture keeps a readable size
// on a page. The report holds the picture in several layouts, from as many
// columns a band as the report's content width holds down to one, and
// shows the widest its figure holds with its text at tlMinPx or more (a
// container query: no script); each SVG scales down (viewBox, width 100%)
// only when its figure is narrower still, which the narrowest layout alone
// may be.
//
// Every coordinate is an integer computed from the plan alone, so the same
// plan gives the same bytes. Text is set in a monospace font whose advance
// is at most tlCharW, so that cell widths computed from the number of
// characters hold the text in any such font.
const (
	tlFont      = 13 // font size of every text
	tlCharW     = 8  // upper bound of a character's advance at tlFont (monospace fonts advance 0.6em)
	tlLineH     = 16 // distance between the baselines of a cell's lines
	tlPad       = 8  // inner padding of a cell
	tlStripW    = 10 // the patterned strip at the left of a cell
	tlGap       = 10 // space between cells
	tlLabelW    = 120
	tlMinColW   = 120
	tlTargetW   = 860 // widest band wanted: the report's content width
	tlMinCols   = 2   // columns per band, at the least
	tlBandGap   = 22
	tlSwatchW   = 28
	tlLegendRow = 24
	tlMinPx     = 12 // smallest size, in CSS pixels, a layout draws its text at before a narrower one takes its place
)

// cellStyle says how a timeline cell is drawn; each style is told apart by
// a fill pattern or a dash style as well as by its text, never by colour
// alone.
type cellStyle int

const (
	// cellSame: nothing changes (plain outline).
	cellSame cellStyle = iota
	// cellUpgrade: a version changes without replacing nodes (grey fill).
	cellUpgrade
	// cellControlPlaneDrain: control-plane machines are replaced and their
	// nodes drain (diagonal hatching).
	cellControlPlaneDrain
	// cellWorkerDrain: worker machines roll and their nodes drain (cross
	// hatching).
	cellWorkerDrain
	// cellPaused: the workers are held (dotted outline).
	cellPaused
	// cellGate: the gate stops the plan before this pass (thick dashed
	// outline).
	cellGate
)

// tlCell is one box of the timeline: its lines of text and its accessible
// description.
type tlCell struct {
	Lines []string
	Style cellStyle
	Title string
}

// tlColumn is the start or one pass.
type tlColumn struct {
	Head  []string
	Title string
	// Lanes are the control plane, workers and Longhorn cells.
	Lanes [3]tlCell
	// Stop is set on the pass the gate stops the plan before.
	Stop *tlCell
}

// tlLanes name the lanes, in order.
var tlLanes = [...]string{"control plane", "workers", "Longhorn"}

// timeline is the model the SVG is drawn from.
type timeline struct {
	Title, Desc string
	Columns     []tlColumn
	// Stops is true when a column holds the gate's stop.
	Stops bool
}

// timeline builds the picture's model of p; nil when p has no pass.
func (p *Plan) timeline() *timeline {
	if len(p.Passes) == 0 {
		return nil
	}
	first := p.Passes[0]
	start := tlColumn{
		Head:  []string{"start", "Sylva " + p.From.Release},
		Title: "Start on Sylva " + p.From.Release,
		Lanes: [3]tlCell{
			{Lines: []string{first.ControlPlane.From}, Title: "control plane on Kubernetes " + first.ControlPlane.From},
			{Lines: []string{first.Workers.From}, Title: "workers on Kubernetes " + first.Workers.From},
			lhStart(first),
		},
	}
	tl := &timeline{
		Title:   fmt.Sprintf("Timeline of the transition from Sylva %s to %s in %s", p.From.Release, p.To.Release, cell.Count(len(p.Passes), "pass", "passes")),
		Columns: []tlColumn{start},
	}
	done := 0
	if p.Position != nil && p.Position.PassKnown {
		done = p.Position.PassesDone
	}
	stopAt := 0 // index of the pass the gate stops before; 0 for none
	if p.Gate.Outcome == GateFail || p.Gate.Outcome == GateHeld {
		if done < len(p.Passes) {
			stopAt = p.Passes[done].Index
		}
	}
	desc := []string{fmt.Sprintf("%s: %s; %s; %s.", start.Title, start.Lanes[0].Title, start.Lanes[1].Title, start.Lanes[2].Title)}
	for i, ps := range p.Passes {
		c := passColumn(ps, i < done)
		if ps.Index == stopAt {
			c.Stop = gateCell(p.Gate, ps.Index)
			tl.Stops = true
			desc = append(desc, "The"+strings.TrimPrefix(c.Stop.Title, "the")+".")
		}
		tl.Columns = append(tl.Columns, c)
		desc = append(desc, fmt.Sprintf("%s: %s; %s; %s.", c.Title, c.Lanes[0].Title, c.Lanes[1].Title, c.Lanes[2].Title))
	}
	tl.Desc = strings.Join(desc, " ")
	return tl
}

// lhStart is the Longhorn cell of the start column: the version before the
// first pass.
func lhStart(first Pass) tlCell {
	for _, c := range first.Components {
		if c.Name == longhorn {
			return tlCell{Lines: []string{c.From}, Title: "Longhorn " + c.From}
		}
	}
	return tlCell{Lines: []string{"-"}, Title: "Longhorn: not planned"}
}

// passColumn draws pass ps; done marks a pass the cluster's status says
// completed.
func passColumn(ps Pass, done bool) tlColumn {
	head := fmt.Sprintf("pass %d", ps.Index)
	title := fmt.Sprintf("Pass %d (Sylva %s, %s", ps.Index, ps.Release, triggerText(ps.Trigger))
	if done {
		head += " · done"
		title += ", done"
	}
	title += ")"
	c := tlColumn{Head: []string{head, "Sylva " + ps.Release, triggerText(ps.Trigger)}, Title: title}

	cp := ps.ControlPlane
	if cp.From != cp.To {
		c.Lanes[0] = tlCell{Lines: []string{cp.From + " → " + cp.To}, Style: cellControlPlaneDrain, Title: "control plane " + cp.From + " → " + cp.To}
	} else {
		c.Lanes[0] = tlCell{Lines: []string{"stays " + cp.To}, Title: "control plane stays on " + cp.To}
	}
	if cp.Version != "" {
		c.Lanes[0].Lines = append(c.Lanes[0].Lines, cp.Version)
		c.Lanes[0].Title += " (" + cp.Version + ")"
	}
	if cp.From != cp.To {
		c.Lanes[0].Lines = append(c.Lanes[0].Lines, "nodes drain")
		c.Lanes[0].Title += ", control-plane nodes are replaced and drain"
	}

	w := ps.Workers
	switch {
	case w.Rolls && w.From == w.To:
		c.Lanes[1] = tlCell{Lines: []string{w.From + " patch", "roll", "nodes drain"}, Style: cellWorkerDrain, Title: "workers roll to another patch of " + w.From + ", worker nodes drain"}
	case w.Rolls:
		c.Lanes[1] = tlCell{Lines: []string{w.From + " → " + w.To, "roll", "nodes drain"}, Style: cellWorkerDrain, Title: "workers roll " + w.From + " → " + w.To + ", worker nodes drain"}
	case w.Paused:
		c.Lanes[1] = tlCell{Lines: []string{"paused on " + w.From}, Style: cellPaused, Title: "workers paused on " + w.From}
	default:
		c.Lanes[1] = tlCell{Lines: []string{"stay on " + w.From}, Title: "workers stay on " + w.From}
	}

	c.Lanes[2] = tlCell{Lines: []string{"-"}, Title: "Longhorn: not planned"}
	for _, cc := range ps.Components {
		if cc.Name != longhorn {
			continue
		}
		if cc.From != cc.To {
			c.Lanes[2] = tlCell{Lines: []string{cc.From + " → " + cc.To, "upgrade"}, Style: cellUpgrade, Title: "Longhorn " + cc.From + " → " + cc.To}
		} else {
			c.Lanes[2] = tlCell{Lines: []string{"stays " + cc.To}, Title: "Longhorn stays on " + cc.To}
		}
	}
	return c
}

// triggerText says what starts a pass, short enough for a column header.
func triggerText(t Trigger) string {
	if t == TriggerReconciliation {
		return "reconciliation"
	}
	return "chart upgrade"
}

// gateCell is the gate lane's cell of pass index, the one the gate stops
// the plan before.
func gateCell(g Gate, index int) *tlCell {
	verb, code := "fails", 2
	if g.Outcome == GateHeld {
		verb, code = "holds", 4
	}
	return &tlCell{
		Lines: []string{"STOP: gate " + verb, fmt.Sprintf("exit %d", code)},
		Style: cellGate,
		Title: fmt.Sprintf("the gate stops the plan before pass %d: it %s, exit %d (%s)", index, verb, code, g.Reason),
	}
}

// tlGeometry is a layout of a timeline.
type tlGeometry struct {
	// id is the layout's name, unique in the page: it prefixes the ids of
	// its SVG and is its class.
	id                        string
	colW, headH, laneH, gateH int
	perBand, bands            int
	width, bandH, legendY     int
	height                    int
	legend                    []tlLegendItem
}

type tlLegendItem struct {
	style cellStyle
	text  string
	x, y  int
}

// textW is the width text takes at most.
func textW(s string) int { return utf8.RuneCountInString(s) * tlCharW }

func cellH(lines int) int { return lines*tlLineH + 2*tlPad - (tlLineH - tlFont) }

// geometry is the timeline's widest layout: as many columns a band as the
// report's content width holds, and at least tlMinCols.
func (tl *timeline) geometry() tlGeometry { return tl.layout(0) }

// layouts are the timeline's layouts, widest first: the widest, then for
// each number of bands it may take past that the narrowest layout with as
// many (4 + 3 columns rather than 5 + 2), down to one column a band.
func (tl *timeline) layouts() []tlGeometry {
	wide := tl.geometry()
	out := []tlGeometry{wide}
	n := len(tl.Columns)
	bands := func(perBand int) int { return (n + perBand - 1) / perBand }
	for k := wide.perBand - 1; k >= 1; k-- {
		if k == 1 || bands(k-1) != bands(k) {
			out = append(out, tl.layout(k))
		}
	}
	return out
}

// layout is the timeline with perBand columns a band; 0 for as many as
// the report's content width holds.
func (tl *timeline) layout(perBand int) tlGeometry {
	g := tlGeometry{colW: tlMinColW}
	headLines, laneLines, gateLines := 1, 1, 1
	for _, c := range tl.Columns {
		cells := c.Lanes[:]
		if c.Stop != nil {
			cells = append(cells[:len(cells):len(cells)], *c.Stop)
			gateLines = max(gateLines, len(c.Stop.Lines))
		}
		headLines = max(headLines, len(c.Head))
		for _, s := range c.Head {
			g.colW = max(g.colW, textW(s)+2*tlPad+tlGap)
		}
		for i, cell := range cells {
			if i < len(c.Lanes) {
				laneLines = max(laneLines, len(cell.Lines))
			}
			for _, s := range cell.Lines {
				g.colW = max(g.colW, tlStripW+textW(s)+2*tlPad+tlGap)
			}
		}
	}
	g.headH, g.laneH, g.gateH = cellH(headLines), cellH(laneLines), 0
	if tl.Stops {
		g.gateH = cellH(gateLines)
	}
	g.perBand = perBand
	if perBand == 0 {
		g.perBand = max(tlMinCols, (tlTargetW-tlLabelW)/g.colW)
	}
	g.perBand = min(g.perBand, len(tl.Columns))
	g.id = fmt.Sprintf("timeline-cols-%d", g.perBand)
	g.bands = (len(tl.Columns) + g.perBand - 1) / g.perBand
	g.width = tlLabelW + g.perBand*g.colW
	g.bandH = g.headH + len(tlLanes)*(g.laneH+tlGap)
	if tl.Stops {
		g.bandH += g.gateH + tlGap
	}

	items := tl.legend()
	g.legendY = g.bands*(g.bandH+tlBandGap) + tlGap
	x, y := 0, g.legendY
	for i := range items {
		w := tlSwatchW + tlGap + textW(items[i].text) + 2*tlGap
		if x > 0 && x+w > g.width {
			x, y = 0, y+tlLegendRow
		}
		items[i].x, items[i].y = x, y
		x += w
	}
	g.legend = items
	g.height = y + tlLegendRow
	if len(items) == 0 {
		g.height = g.bands*(g.bandH+tlBandGap) - tlBandGap
	}
	return g
}

// tlMarks are the legend's marks, in its order: each cell style but the
// plain box, and what it means.
var tlMarks = []tlLegendItem{
	{style: cellControlPlaneDrain, text: "control-plane nodes drain"},
	{style: cellWorkerDrain, text: "worker nodes drain (roll)"},
	{style: cellPaused, text: "workers paused"},
	{style: cellUpgrade, text: "Longhorn upgrade"},
	{style: cellGate, text: "the gate stops the plan"},
}

// legend is the legend's items, unplaced: the marks a cell of the timeline
// is drawn with, and no other.
func (tl *timeline) legend() []tlLegendItem {
	used := map[cellStyle]bool{}
	for _, c := range tl.Columns {
		for _, cell := range c.Lanes {
			used[cell.Style] = true
		}
		if c.Stop != nil {
			used[c.Stop.Style] = true
		}
	}
	var items []tlLegendItem
	for _, m := range tlMarks {
		if used[m.style] {
			items = append(items, m)
		}
	}
	return items
}

// html is the timeline as the report shows it: its layouts, widest first,
// and the CSS that shows one of them at a time, the widest whose text its
// figure (figure.timelines, the container named timeline) draws at
// tlMinPx or more. A browser without container queries shows the widest.
// The CSS holds numbers only.
func (tl *timeline) html() (template.HTML, template.CSS) {
	var b, css strings.Builder
	css.WriteString("svg.timeline{display:none}")
	var prev tlGeometry
	for i, g := range tl.layouts() {
		b.WriteString(tl.svgOf(g))
		b.WriteString("\n")
		if i == 0 {
			fmt.Fprintf(&css, "svg.%s{display:block}", g.id)
		} else {
			fmt.Fprintf(&css, "\n@container timeline (width < %dpx){svg.%s{display:none}svg.%s{display:block}}", prev.minContainer(), prev.id, g.id)
		}
		prev = g
	}
	// The SVGs escape every text they hold (tlTemplate).
	return template.HTML(b.String()), template.CSS(css.String()) //nolint:gosec // see above; the CSS is numbers and names of our own
}

// minContainer is the narrowest container, in CSS pixels, in which the
// layout draws its text at tlMinPx or more: the SVG is scaled to its
// container's width when that is narrower than the layout.
func (g tlGeometry) minContainer() int {
	return (g.width*tlMinPx + tlFont - 1) / tlFont
}

// svgOf draws the timeline in layout g as an inline SVG document; its ids
// start with g's.
func (tl *timeline) svgOf(g tlGeometry) string {
	var b strings.Builder
	if err := tlTemplate.Execute(&b, tl.drawing(g)); err != nil {
		// The template and its data are the package's own: a failure is a
		// bug, not an input's fault.
		panic("planner: timeline template: " + err.Error())
	}
	return b.String()
}

// tlTemplate draws a tlDrawing. It is a text template whose every text of
// the plan goes through esc (html.EscapeString); numbers, ids and the
// attributes of tlShape are the package's own.
var tlTemplate = texttemplate.Must(texttemplate.New("svg").Funcs(texttemplate.FuncMap{"esc": html.EscapeString}).Parse(
	`<svg xmlns="http://www.w3.org/2000/svg" class="timeline {{.ID}}" viewBox="0 0 {{.Width}} {{.Height}}" width="100%" style="max-width:{{.Width}}px;height:auto" role="img" aria-labelledby="{{.ID}}-title {{.ID}}-desc" font-family="ui-monospace,'DejaVu Sans Mono','Liberation Mono',Menlo,Consolas,monospace" font-size="{{.Font}}">
<title id="{{.ID}}-title">{{esc .Title}}</title>
<desc id="{{.ID}}-desc">{{esc .Desc}}</desc>
<defs>` +
		`<pattern id="{{.ID}}-hatch" width="8" height="8" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="8" height="8" fill="#fff"/><line x1="0" y1="0" x2="0" y2="8" stroke="#1d2330" stroke-width="3"/></pattern>` +
		`<pattern id="{{.ID}}-cross" width="8" height="8" patternUnits="userSpaceOnUse"><rect width="8" height="8" fill="#fff"/><path d="M0 0L8 8M8 0L0 8" stroke="#1d2330" stroke-width="1.2"/></pattern>` +
		`</defs>
{{range .Bands}}<g class="band" aria-hidden="true">
{{range .Labels}}{{template "text" .}}{{end}}</g>
{{range .Passes}}<g class="pass"><title>{{esc .Title}}</title>
{{template "text" .Head}}{{range .Cells}}{{template "cell" .}}{{end}}{{with .Bar}}<line class="gate-bar" x1="{{.X}}" y1="{{.Y1}}" x2="{{.X}}" y2="{{.Y2}}" stroke="#1d2330" stroke-width="3" stroke-dasharray="8 4"/>
{{end}}{{with .Gate}}{{template "cell" .}}{{end}}</g>
{{end}}{{end}}{{with .Legend}}<g class="legend" aria-hidden="true">
{{range .}}{{template "shape" .Shape}}{{template "text" .Text}}{{end}}</g>
{{end}}</svg>
{{- define "cell"}}<g class="cell"><title>{{esc .Title}}</title>
{{template "shape" .Shape}}{{template "text" .Text}}</g>
{{end}}
{{- define "shape"}}<rect x="{{.X}}" y="{{.Y}}" width="{{.W}}" height="{{.H}}" rx="4" fill="{{.Fill}}" stroke="{{.Stroke}}"{{.Extra}}/>
{{with .Strip}}<rect x="{{.X}}" y="{{.Y}}" width="{{.W}}" height="{{.H}}" fill="{{.Fill}}"/>
{{end}}{{end}}
{{- define "text"}}<text x="{{.X}}" y="{{.Y}}"{{if .Bold}} font-weight="bold"{{end}} fill="#1d2330">{{range $i, $l := .Lines}}<tspan x="{{$.X}}"{{if $i}} dy="{{$.LineH}}"{{end}}>{{esc $l}}</tspan>{{end}}</text>
{{end}}`))

// tlDrawing is a layout of the timeline with every coordinate computed:
// what tlTemplate draws.
type tlDrawing struct {
	ID                  string
	Width, Height, Font int
	Title, Desc         string
	Bands               []tlBandDrawing
	Legend              []tlLegendDrawing
}

type tlBandDrawing struct {
	// Labels name the lanes.
	Labels []tlText
	Passes []tlPassDrawing
}

type tlPassDrawing struct {
	Title string
	Head  tlText
	Cells []tlCellDrawing
	// Bar is the gate's bar and Gate its cell, on the pass the gate stops
	// the plan before.
	Bar  *tlBar
	Gate *tlCellDrawing
}

type tlBar struct{ X, Y1, Y2 int }

type tlCellDrawing struct {
	Title string
	Shape tlShape
	Text  tlText
}

type tlLegendDrawing struct {
	Shape tlShape
	Text  tlText
}

// tlShape is a box: Extra holds attributes of the package's own; Strip is
// the patterned strip at the left of a drain's box.
type tlShape struct {
	X, Y, W, H          int
	Fill, Stroke, Extra string
	Strip               *tlRect
}

type tlRect struct {
	X, Y, W, H int
	Fill       string
}

// tlText is lines of text; X is where each line starts.
type tlText struct {
	X, Y, LineH int
	Bold        bool
	Lines       []string
}

// drawing computes layout g of the timeline.
func (tl *timeline) drawing(g tlGeometry) tlDrawing {
	d := tlDrawing{ID: g.id, Width: g.width, Height: g.height, Font: tlFont, Title: tl.Title, Desc: tl.Desc}
	for band := range g.bands {
		y0 := band * (g.bandH + tlBandGap)
		cols := tl.Columns[band*g.perBand : min(len(tl.Columns), (band+1)*g.perBand)]
		var bd tlBandDrawing
		y := y0 + g.headH + tlGap/2
		for i, lane := range tlLanes {
			bd.Labels = append(bd.Labels, textAt(0, y+i*(g.laneH+tlGap), g.laneH, []string{lane}, true))
		}
		if tl.Stops {
			bd.Labels = append(bd.Labels, textAt(0, y+len(tlLanes)*(g.laneH+tlGap), g.gateH, []string{"gate"}, true))
		}
		for i, c := range cols {
			x := tlLabelW + i*g.colW + tlGap/2
			w := g.colW - tlGap
			pd := tlPassDrawing{Title: c.Title, Head: textAt(x, y0, cellH(len(c.Head)), c.Head, true)} // top-aligned
			for j, cell := range c.Lanes {
				pd.Cells = append(pd.Cells, cellAt(g.id, x, y+j*(g.laneH+tlGap), w, g.laneH, cell))
			}
			if c.Stop != nil {
				// The gate's bar runs down the gap before the pass.
				pd.Bar = &tlBar{X: x - tlGap/2, Y1: y0, Y2: y0 + g.bandH}
				gate := cellAt(g.id, x, y+len(tlLanes)*(g.laneH+tlGap), w, g.gateH, *c.Stop)
				pd.Gate = &gate
			}
			bd.Passes = append(bd.Passes, pd)
		}
		d.Bands = append(d.Bands, bd)
	}
	for _, it := range g.legend {
		d.Legend = append(d.Legend, tlLegendDrawing{
			Shape: shapeAt(g.id, it.x+1, it.y+4, tlSwatchW-2, tlLegendRow-8, it.style, true),
			Text:  textAt(it.x+tlSwatchW+tlGap-tlPad, it.y+(tlLegendRow-cellH(1))/2, cellH(1), []string{it.text}, false),
		})
	}
	return d
}

// cellAt is one box and its text, with the box's description as its
// tooltip. The text starts after the strip where a pattern marks a drain.
// id is the layout's, whose patterns the box is filled with.
func cellAt(id string, x, y, w, h int, c tlCell) tlCellDrawing {
	return tlCellDrawing{Title: c.Title, Shape: shapeAt(id, x, y, w, h, c.Style, false), Text: textAt(x+tlStripW, y, h, c.Lines, false)}
}

// shapeAt is a box in style s: a pattern or a dash style tells each style
// apart without colour. A drain is a patterned strip at the left of the
// box (the whole swatch in the legend), so that the text stays on a plain
// background.
func shapeAt(id string, x, y, w, h int, s cellStyle, swatch bool) tlShape {
	fill, stroke, extra, pattern := "#fff", "#5b6170", "", ""
	switch s {
	case cellSame:
	case cellUpgrade:
		fill = "#e3e6eb"
	case cellControlPlaneDrain:
		stroke, extra, pattern = "#1d2330", ` stroke-width="1.5"`, "url(#"+id+"-hatch)"
	case cellWorkerDrain:
		stroke, extra, pattern = "#1d2330", ` stroke-width="1.5"`, "url(#"+id+"-cross)"
	case cellPaused:
		extra = ` stroke-dasharray="2 3"`
	case cellGate:
		stroke, extra = "#1d2330", ` stroke-width="2.5" stroke-dasharray="8 4"`
	}
	if pattern != "" && swatch {
		fill = pattern
	}
	sh := tlShape{X: x, Y: y, W: w, H: h, Fill: fill, Stroke: stroke, Extra: extra}
	if pattern != "" && !swatch {
		sh.Strip = &tlRect{X: x + 2, Y: y + 2, W: tlStripW, H: h - 4, Fill: pattern}
	}
	return sh
}

// textAt is lines in a box of height h whose left edge is x, centred
// vertically.
func textAt(x, y, h int, lines []string, bold bool) tlText {
	top := y + (h-cellH(len(lines)))/2 + tlPad + tlFont - 2
	return tlText{X: x + tlPad, Y: top, LineH: tlLineH, Bold: bold, Lines: lines}
}
