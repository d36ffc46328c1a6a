package browsertest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"gitlab.com/sylva-projects/sylva-planner/catalog"
	"gitlab.com/sylva-projects/sylva-planner/planner"
	"gitlab.com/sylva-projects/sylva-planner/semver"
)

// chromiumPath is where Debian's chromium package puts the browser.
const chromiumPath = "/usr/bin/chromium"

// requireEnv makes a missing browser a failure instead of a skip.
const requireEnv = "SYLVA_PLANNER_BROWSER"

// shotsEnv names a directory to save a screenshot of each rendering in,
// for a person to look at.
const shotsEnv = "SYLVA_PLANNER_BROWSER_SHOTS"

// chromium returns the browser to run, or skips the test (fails it when
// requireEnv is 1) when there is none.
func chromium(t *testing.T) string {
	t.Helper()
	required := os.Getenv(requireEnv) == "1"
	if _, err := os.Stat(chromiumPath); err != nil {
		if required {
			t.Fatalf("%s=1 but the browser is missing (%v): run hack/install-chromium.sh", requireEnv, err)
		}
		t.Skipf("skipping the HTML report's browser test: %s is missing; hack/install-chromium.sh installs it (%s=1 makes this a failure)", chromiumPath, requireEnv)
	}
	if testing.Short() && !required {
		t.Skipf("skipping the HTML report's browser test in -short mode (%s=1 runs it)", requireEnv)
	}
	return chromiumPath
}

// browser starts one headless Chromium for the test, with a fresh profile
// and nothing that reaches out to the network on its own, and returns its
// context.
func browser(t *testing.T) context.Context {
	t.Helper()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromium(t)),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(t.TempDir()),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx, chromedp.WithLogf(t.Logf))
	// Cleanups run last in first out: the browser stops (and leaves its
	// profile) before the profile directory is removed.
	t.Cleanup(cancelAlloc)
	t.Cleanup(cancel)
	// The first Run starts the browser, with the context's lifetime.
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatalf("start %s: %v", chromiumPath, err)
	}
	return ctx
}

// pageReport is what the page says about itself, from measureJS.
type pageReport struct {
	SVG       bool     `json:"svg"`
	Title     string   `json:"title"`
	Labelled  bool     `json:"labelled"`
	Texts     []string `json:"texts"`
	SVGWidth  float64  `json:"svgWidth"`
	SVGHeight float64  `json:"svgHeight"`
	Container float64  `json:"container"`
	Viewport  float64  `json:"viewport"`
	PageWidth float64  `json:"pageWidth"`
	Overflow  []string `json:"overflow"`
	TextsOut  []string `json:"textsOut"`
	// Timelines is how many timelines are shown: the report holds one
	// layout per width range, and shows one at a time.
	Timelines int `json:"timelines"`
	// MinFont is the smallest size, in CSS pixels as rendered (after the
	// picture is scaled to its container), of a text of the picture or its
	// caption; MinFontText is that text.
	MinFont     float64 `json:"minFont"`
	MinFontText string  `json:"minFontText"`
	// Legend is the texts of the shown timeline's legend.
	Legend []string `json:"legend"`
	// Headline is the text the headline shows (innerText); HeadlineShown
	// says it is drawn with a size.
	Headline      string `json:"headline"`
	HeadlineShown bool   `json:"headlineShown"`
	// Pictographs are the characters of the headline and of the page's
	// title that need an emoji font (Extended_Pictographic, or the emoji
	// variation selector): without one they show as empty boxes.
	Pictographs []string `json:"pictographs"`
}

// measureJS checks the page as a reader sees it: the timeline exists and
// is labelled; no element is wider than its box (scrollWidth) or reaches
// past the viewport; the SVG fits its container; every text of the SVG lies
// inside its cell and inside the picture, and how large it is drawn; what
// the headline and the legend say.
const measureJS = `(() => {
  const r = {svg: false, title: "", labelled: false, texts: [], overflow: [], textsOut: [], timelines: 0, minFont: 0, minFontText: "", legend: [], headline: "", headlineShown: false, pictographs: []};
  const h1 = document.querySelector("header h1");
  if (h1) {
    r.headline = h1.innerText;
    const hb = h1.getBoundingClientRect();
    r.headlineShown = hb.width > 0 && hb.height > 0 && getComputedStyle(h1).visibility === "visible";
  }
  r.pictographs = ((r.headline + document.title).match(/[\p{Extended_Pictographic}\u{FE0F}]/gu) || []);
  const vw = document.documentElement.clientWidth;
  r.viewport = vw;
  r.pageWidth = document.documentElement.scrollWidth;
  const name = el => el.tagName.toLowerCase() + (el.className && typeof el.className === "string" ? "." + el.className.split(" ").join(".") : "") + ' "' + (el.textContent || "").trim().slice(0, 40) + '"';
  for (const el of document.body.querySelectorAll("*")) {
    if (el.closest("svg") && el.tagName.toLowerCase() !== "svg") continue;
    if (el.clientWidth > 0 && el.scrollWidth > el.clientWidth + 1) r.overflow.push(name(el) + " scrollWidth " + el.scrollWidth + " > clientWidth " + el.clientWidth);
    const b = el.getBoundingClientRect();
    if (b.width > 0 && (b.left < -0.5 || b.right > vw + 0.5)) r.overflow.push(name(el) + " spans " + b.left + ".." + b.right + " of a " + vw + "px viewport");
  }
  const shown = Array.from(document.querySelectorAll("svg.timeline")).filter(s => s.getBoundingClientRect().width > 0);
  r.timelines = shown.length;
  const svg = shown[0];
  if (!svg) return r;
  r.svg = true;
  const small = (px, what) => {
    if (r.minFontText === "" || px < r.minFont) { r.minFont = px; r.minFontText = what; }
  };
  for (const text of svg.querySelectorAll("text")) {
    const m = text.getScreenCTM();
    small(parseFloat(getComputedStyle(text).fontSize) * Math.hypot(m.a, m.b), text.textContent);
  }
  const caption = svg.closest("figure") && svg.closest("figure").querySelector("figcaption");
  if (caption) small(parseFloat(getComputedStyle(caption).fontSize), "figcaption");
  r.legend = Array.from(svg.querySelectorAll("g.legend text")).map(t => t.textContent);
  const t = svg.querySelector(":scope > title");
  r.title = t ? t.textContent : "";
  const ids = (svg.getAttribute("aria-labelledby") || "").split(" ").filter(Boolean);
  r.labelled = ids.length > 0 && ids.every(id => document.getElementById(id) && svg.contains(document.getElementById(id)));
  r.texts = Array.from(svg.querySelectorAll("tspan")).map(s => s.textContent);
  const b = svg.getBoundingClientRect();
  r.svgWidth = b.width;
  r.svgHeight = b.height;
  r.container = svg.parentElement.clientWidth;
  const vb = svg.viewBox.baseVal;
  const inside = (a, o) => a.x >= o.x - 0.5 && a.y >= o.y - 0.5 && a.x + a.width <= o.x + o.width + 0.5 && a.y + a.height <= o.y + o.height + 0.5;
  for (const text of svg.querySelectorAll("text")) {
    const tb = text.getBBox();
    if (!inside(tb, {x: 0, y: 0, width: vb.width, height: vb.height})) r.textsOut.push('"' + text.textContent + '" outside the picture');
    const cell = text.closest("g.cell");
    if (cell && !inside(tb, cell.querySelector("rect").getBBox())) r.textsOut.push('"' + text.textContent + '" outside its box');
  }
  return r;
})()`

// render writes p's HTML report to a file and returns its file URL.
func render(t *testing.T, p *planner.Plan, name string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name+".html")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.WriteReportHTML(f); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return "file://" + path
}

func compute(t *testing.T, in planner.Input) *planner.Plan {
	t.Helper()
	if in.Catalog == nil {
		cat, err := catalog.Default()
		if err != nil {
			t.Fatal(err)
		}
		in.Catalog = cat
	}
	in.ToolVersion = "test"
	in.AsOf = time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	p, err := planner.Compute(in)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestReportTimelineInBrowser renders reports of several shapes at a
// desktop, a tablet and a phone width, and at a print width in print media.
func TestReportTimelineInBrowser(t *testing.T) {
	ctx := browser(t)
	failOnWarning := planner.GateOptions{FailOn: planner.FailOnWarning}
	plans := []struct {
		name string
		in   planner.Input
		// stops says the gate stops the plan: the picture has a gate lane.
		stops bool
	}{
		{"two passes, ready", planner.Input{From: semver.MustParse("1.4"), To: semver.MustParse("1.6")}, false},
		{"one pass", planner.Input{From: semver.MustParse("1.5"), To: semver.MustParse("1.6")}, false},
		{"four hops on rke2 wrap into bands", planner.Input{From: semver.MustParse("1.2"), To: semver.MustParse("1.7"), Provider: "rke2"}, false},
		{"the gate stops a multi-hop plan", planner.Input{From: semver.MustParse("1.4"), To: semver.MustParse("1.7"), Gate: failOnWarning}, true},
		{"a cluster midway has its first pass done", planner.Input{To: semver.MustParse("1.6"), Progress: &planner.TransitionState{Found: true, Installed: semver.MustParse("1.6"), Pending: true, TransitionFrom: "1.4", TransitionPass: "1"}}, false},
		{"a chart that holds the workers pauses them", planner.Input{Catalog: holdWorkers(t, "1.6"), From: semver.MustParse("1.4"), To: semver.MustParse("1.6")}, false},
		{"an unreadable running version blocks", planner.Input{From: semver.MustParse("1.4"), To: semver.MustParse("1.6"), Observed: &planner.Observed{Source: "test", Components: []planner.ObservedComponent{{Name: "longhorn", Raw: "not-a-version", Where: "image"}}}}, true},
	}
	views := []struct {
		name          string
		width, height int64
		media         string
	}{
		{"screen 1200px", 1200, 900, "screen"},
		{"screen 600px", 600, 1000, "screen"},
		{"screen 360px", 360, 800, "screen"},
		{"print 800px", 800, 1000, "print"},
	}
	verdicts := map[planner.Verdict]bool{}
	paused := false
	for i, pc := range plans {
		p := compute(t, pc.in)
		if len(p.Passes) == 0 {
			t.Fatalf("%s: the plan has no pass", pc.name)
		}
		verdicts[p.Verdict] = true
		paused = paused || slices.Contains(legend(p, pc.stops), "workers paused")
		url := render(t, p, fmt.Sprintf("report-%d", i))
		for _, v := range views {
			t.Run(pc.name+"/"+v.name, func(t *testing.T) {
				tab, cancel := chromedp.NewContext(ctx)
				defer cancel()
				tctx, cancelTimeout := context.WithTimeout(tab, 60*time.Second)
				defer cancelTimeout()
				err := chromedp.Do(tctx,
					chromedp.EmulateViewport(v.width, v.height),
					chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
						_, err := cdp.Call(ctx, t, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Media: v.media})
						return err
					}),
					chromedp.Navigate(url),
				)
				if err != nil {
					t.Fatalf("load the report: %v", err)
				}
				r, err := chromedp.Run(tctx, chromedp.Evaluate[pageReport](measureJS))
				if err != nil {
					t.Fatalf("measure the page: %v", err)
				}
				if dir := os.Getenv(shotsEnv); dir != "" {
					shot(tctx, t, dir, fmt.Sprintf("report-%d-%s-%d.png", i, v.media, v.width))
				}
				check(t, p, r, pc.stops)
			})
		}
	}
	// The plans are the shapes they are meant to be.
	if !verdicts[planner.VerdictReady] || !verdicts[planner.VerdictBlocked] || !paused {
		t.Errorf("the plans cover the verdicts %v and paused workers: %v; want ready, blocked and paused workers", verdicts, paused)
	}
}

// holdWorkers is the embedded catalog with release rel's chart able to
// hold the MachineDeployments back: the workers pause in a hop's passes
// but its last.
func holdWorkers(t *testing.T, rel string) *catalog.Catalog {
	t.Helper()
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	c := *cat
	c.Releases = slices.Clone(c.Releases)
	for i := range c.Releases {
		if c.Releases[i].Release.Short() == rel {
			c.Releases[i].Capabilities = &catalog.Capabilities{HoldWorkers: &catalog.Capability{Value: true, Source: "test"}}
			return &c
		}
	}
	t.Fatalf("release %s is not in the catalog", rel)
	return nil
}

// minFont is the smallest text the picture may draw, in CSS pixels.
const minFont = 11

func check(t *testing.T, p *planner.Plan, r pageReport, stops bool) {
	t.Helper()
	checkHeadline(t, p, r)
	if !r.SVG {
		t.Fatal("the report shows no timeline (svg.timeline)")
	}
	if r.Timelines != 1 {
		t.Errorf("the report shows %d timelines, want 1", r.Timelines)
	}
	if r.MinFont < minFont {
		t.Errorf("the timeline draws %q at %.1fpx, under %dpx", r.MinFontText, r.MinFont, minFont)
	}
	t.Logf("smallest text of the timeline: %.1fpx (%q)", r.MinFont, r.MinFontText)
	if want := legend(p, stops); !slices.Equal(r.Legend, want) {
		t.Errorf("the legend lists %q, want the marks the plan's passes use: %q", r.Legend, want)
	}
	if !strings.HasPrefix(r.Title, "Timeline of the transition") || !r.Labelled {
		t.Errorf("timeline title %q, labelled by its title and description: %v", r.Title, r.Labelled)
	}
	texts := strings.Join(r.Texts, "\n")
	for _, ps := range p.Passes {
		label := fmt.Sprintf("pass %d", ps.Index)
		if !strings.Contains(texts+"\n", label+"\n") && !strings.Contains(texts, label+" · done") {
			t.Errorf("the timeline lacks the label %q; its texts:\n%s", label, texts)
		}
	}
	for _, want := range []string{"control plane", "workers", "Longhorn", "nodes drain"} {
		if !strings.Contains(texts, want) {
			t.Errorf("the timeline lacks %q", want)
		}
	}
	if got := strings.Contains(texts, "STOP: gate"); got != stops {
		t.Errorf("the timeline shows the gate's stop: %v, want %v", got, stops)
	}
	if r.SVGWidth <= 0 || r.SVGHeight <= 0 {
		t.Errorf("the timeline is drawn %vx%v", r.SVGWidth, r.SVGHeight)
	}
	if r.SVGWidth > r.Container+0.5 {
		t.Errorf("the timeline is %vpx wide in a %vpx container", r.SVGWidth, r.Container)
	}
	if r.PageWidth > r.Viewport {
		t.Errorf("the page is %vpx wide in a %vpx viewport", r.PageWidth, r.Viewport)
	}
	for _, o := range r.Overflow {
		t.Errorf("overflow: %s", o)
	}
	for _, o := range r.TextsOut {
		t.Errorf("timeline text %s", o)
	}
}

// checkHeadline: the verdict is a word of the headline, drawn in the
// page's text font, with no character that only an emoji font has.
func checkHeadline(t *testing.T, p *planner.Plan, r pageReport) {
	t.Helper()
	if word := strings.ToUpper(string(p.Verdict)); !strings.Contains(r.Headline, word) || !r.HeadlineShown {
		t.Errorf("the headline %q (shown: %v) does not show the verdict %s as text", r.Headline, r.HeadlineShown, word)
	}
	if len(r.Pictographs) > 0 {
		t.Errorf("the headline or the title holds %q, which needs an emoji font: %q", r.Pictographs, r.Headline)
	}
}

// legend is what the timeline's legend should list for p: the marks its
// passes use, in the legend's order.
func legend(p *planner.Plan, stops bool) []string {
	var cp, roll, paused, lh bool
	for _, ps := range p.Passes {
		cp = cp || ps.ControlPlane.From != ps.ControlPlane.To
		roll = roll || ps.Workers.Rolls
		paused = paused || ps.Workers.Paused && !ps.Workers.Rolls
		for _, c := range ps.Components {
			lh = lh || c.Name == "longhorn" && c.From != c.To
		}
	}
	var out []string
	for _, m := range []struct {
		used bool
		text string
	}{
		{cp, "control-plane nodes drain"},
		{roll, "worker nodes drain (roll)"},
		{paused, "workers paused"},
		{lh, "Longhorn upgrade"},
		{stops, "the gate stops the plan"},
	} {
		if m.used {
			out = append(out, m.text)
		}
	}
	return out
}

func shot(ctx context.Context, t *testing.T, dir, name string) {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), png, 0o644); err != nil {
		t.Fatal(err)
	}
}
