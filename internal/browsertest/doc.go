// Package browsertest renders the HTML report in a real browser, headless
// Chromium, and checks what a reader sees at a desktop, a tablet and a
// phone width (1200, 600 and 360 px) and at a print width: the timeline of
// the passes is drawn, names every pass, draws no text under 11 px (its
// bands re-flow instead), lists in its legend only the marks the plan
// uses, and nothing overflows the page; the headline says the verdict in
// words, with no character only an emoji font has (Debian's chromium has
// none). It holds tests only. Chromium is Debian's package, installed by
// hack/install-chromium.sh; without it the tests skip, unless
// SYLVA_PLANNER_BROWSER=1 makes its absence a failure.
package browsertest
