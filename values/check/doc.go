// Package check is `values check`: it simulates the sylva-units chart
// across a transition plan (a fresh install, each pass of the last hop
// against the status ConfigMap before it, a pre-release, a branch and a
// release-branch status), rendering the helper values alone (Values) or
// the real chart with them (Chart), compares each render with the plan's
// helper values, and lints the values' template text. It renders with
// helmengine and takes the expected values and the generated overlay from
// overlay; it never builds a cluster client, never prints and never reads
// the clock.
package check
