// Package planner computes the plan of a Sylva release transition: the
// route of release hops, each reconciliation pass of the sylva-units
// HelmRelease with the helper values it sets and the status it must leave,
// the findings, the verdict and the score.
//
// Compute is pure and deterministic: the same Input gives the same Plan,
// and the Write methods the same bytes. The package imports no cluster
// client, never reads the clock (the date comes in Input.AsOf) and never
// prints except to the writer it is given.
package planner
