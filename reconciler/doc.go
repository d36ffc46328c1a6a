// Package reconciler requests the next reconciliation pass of the sylva-units
// HelmRelease exactly once per request value, as sylva-units-operator does:
// Decide (pure) tells from an Observation whether a pass is requested, already
// handled, or can start now, by the readiness rule of the status package
// (status.RequestOf, status.Assess) that the status command applies too;
// Apply reads the objects with Fetch (status/statuskube.Fetch, the reader the
// status command uses too), decides, writes one merge patch with
// optimistic lock and records an Event through a recorder; Drive follows a
// pass to its end; the controller drives Apply from watches.
//
// Decide reads no clock and no cluster. The package imports client-go and
// controller-runtime but never the cmd package.
package reconciler
