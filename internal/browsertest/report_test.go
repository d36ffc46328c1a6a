package browsertest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"gitlab.com/sylva-projects/sylva-planner/catalog"
	"gitlab.com/sylva-projects/sylva-planner/planner"
	"gitlab.com/sylva-projects/sylva-planner/skew"
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
}

// measureJS checks the page as a reader sees it: the timeline exists and
// is labelled; no element is wider than its box (scrollWidth) or reaches
// past the viewport; the SVG fits its container; every text of the SVG lies
// inside its cell and inside the picture.
const measureJS = `(() => {
  const r = {svg: false, title: "", labelled: false, texts: [], overflow: [], textsOut: []};
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
  const svg = document.querySelector("svg.timeline");
  if (!svg) return r;
  r.svg = true;
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
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	in.Catalog, in.ToolVersion = cat, "test"
	in.AsOf = time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	p, err := planner.Compute(in)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestReportTimelineInBrowser renders reports of several shapes at a
// screen width and at a print width, in screen and print media.
func TestReportTimelineInBrowser(t *testing.T) {
	ctx := browser(t)
	failOnWarning := planner.GateOptions{FailOn: planner.FailOnWarning}
	plans := []struct {
		name string
		in   planner.Input
		// stops says the gate stops the plan: the picture has a gate lane.
		stops bool
	}{
		{"two passes, ready", planner.Input{From: skew.MustParse("1.4"), To: skew.MustParse("1.6")}, false},
		{"one pass", planner.Input{From: skew.MustParse("1.5"), To: skew.MustParse("1.6")}, false},
		{"four hops on rke2 wrap into bands", planner.Input{From: skew.MustParse("1.2"), To: skew.MustParse("1.7"), Provider: "rke2"}, false},
		{"the gate stops a multi-hop plan", planner.Input{From: skew.MustParse("1.4"), To: skew.MustParse("1.7"), Gate: failOnWarning}, true},
		{"a cluster midway has its first pass done", planner.Input{To: skew.MustParse("1.6"), Progress: &planner.Progress{Found: true, Installed: skew.MustParse("1.6"), Pending: true, TransitionFrom: "1.4", TransitionPass: "1"}}, false},
	}
	views := []struct {
		name          string
		width, height int64
		media         string
	}{
		{"screen 1280px", 1280, 900, "screen"},
		{"screen 800px", 800, 1000, "screen"},
		{"print 800px", 800, 1000, "print"},
	}
	for i, pc := range plans {
		p := compute(t, pc.in)
		if len(p.Passes) == 0 {
			t.Fatalf("%s: the plan has no pass", pc.name)
		}
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
}

func check(t *testing.T, p *planner.Plan, r pageReport, stops bool) {
	t.Helper()
	if !r.SVG {
		t.Fatal("the report has no timeline (svg.timeline)")
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
