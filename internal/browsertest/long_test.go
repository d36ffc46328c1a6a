package browsertest

import (
	"context"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/chromedp/chromedp"

	"gitlab.com/sylva-projects/sylva-planner/catalog"
	"gitlab.com/sylva-projects/sylva-planner/planner"
	"gitlab.com/sylva-projects/sylva-planner/semver"
)

// longWordCatalog is a catalog whose version is one unbroken word of 3,000
// characters, which the report shows in its header and in a check.
var longWordCatalog = `apiVersion: planner.sylva/v1alpha1
kind: ComponentCatalog
catalogVersion: "W"
updated: "2026-01-01"
components:
  - name: longhorn
    stepping: minor
    versions:
      - {version: "1.8.1", min_k8s: "1.25"}
      - {version: "1.9.2", min_k8s: "1.25"}
---
apiVersion: planner.sylva/v1alpha1
kind: ReleaseCatalog
catalogVersion: "W"
updated: "2026-01-01"
releases:
  - release: "1.4"
    kubernetes:
      management: "1.31"
      versions:
        - {minor: "1.31", kubeadm: "v1.31.8", rke2: "v1.31.8+rke2r1"}
    components: [{name: longhorn, version: "1.8.1"}]
  - release: "1.6"
    upgrade_from: ["1.4"]
    kubernetes:
      management: "1.33"
      versions:
        - {minor: "1.32", kubeadm: "v1.32.9", rke2: "v1.32.9+rke2r1"}
        - {minor: "1.33", kubeadm: "v1.33.5", rke2: "v1.33.5+rke2r1"}
    components: [{name: longhorn, version: "1.9.2"}]
`

// TestReportWrapsALongWordInBrowser: an unbroken string of 3,000
// characters from the catalog (and an input named as long) wraps inside
// the page instead of widening it.
func TestReportWrapsALongWordInBrowser(t *testing.T) {
	ctx := browser(t)
	word := strings.Repeat("w", 3000)
	cat, err := catalog.LoadFile(fstest.MapFS{"c.yaml": {Data: []byte(strings.ReplaceAll(longWordCatalog, `"W"`, `"`+word+`"`))}}, "c.yaml")
	if err != nil {
		t.Fatal(err)
	}
	p, err := planner.Compute(planner.Input{
		Catalog: cat, From: semver.MustParse("1.4"), To: semver.MustParse("1.6"), ToolVersion: "test",
		AsOf: time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC), Inputs: []string{"status " + word + ".yaml"},
	})
	if err != nil {
		t.Fatal(err)
	}
	url := render(t, p, "long-word")
	for _, width := range []int64{1200, 600, 360} {
		tab, cancel := chromedp.NewContext(ctx)
		tctx, cancelTimeout := context.WithTimeout(tab, 60*time.Second)
		var r pageReport
		err := chromedp.Do(tctx, chromedp.EmulateViewport(width, 900), chromedp.Navigate(url))
		if err == nil {
			r, err = chromedp.Run(tctx, chromedp.Evaluate[pageReport](measureJS))
		}
		cancelTimeout()
		cancel()
		if err != nil {
			t.Fatalf("%dpx: load and measure the report: %v", width, err)
		}
		if r.PageWidth > r.Viewport {
			t.Errorf("%dpx: the page is %vpx wide in a %vpx viewport", width, r.PageWidth, r.Viewport)
		}
		for _, o := range r.Overflow {
			t.Errorf("%dpx: overflow: %s", width, o)
		}
	}
}
