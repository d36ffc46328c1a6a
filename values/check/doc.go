// Package values generates, renders, lints and simulates the sylva-units
// helper values (gotpl strings) that implement a transition plan. Rendering
// uses Helm's own engine; `lookup` is served by an injected Source, so this
// package never builds a cluster client, never prints and never reads the
// clock.
package values
