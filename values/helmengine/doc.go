// Package helmengine renders sylva-units values with Helm's own engine:
// the gotpl strings of a values tree alone (Render, RenderPhased), or a
// chart loaded once and rendered many times (LoadChart; Chart.Values,
// Chart.Eval, Chart.Units, and the renders of a Chart.Input), with
// `lookup` served by an injected Source within an allow list and the API
// versions a served source names. It never builds a cluster client, never
// prints and never reads the clock.
package helmengine
