// Package browsertest renders the HTML report in a real browser, headless
// Chromium, and checks what a reader sees: the timeline of the passes is
// drawn, names every pass, and nothing overflows the page at a screen and
// at a print width. It holds tests only. Chromium is Debian's package,
// installed by hack/install-chromium.sh; without it the tests skip, unless
// SYLVA_PLANNER_BROWSER=1 makes its absence a failure.
package browsertest
