// Package flux requests the next reconciliation pass of the sylva-units
// HelmRelease exactly once per request value, as sylva-units-operator does:
// Decide (pure) tells from an Observation whether a pass is requested, already
// handled, or can start now; Apply reads the objects, decides and writes one
// resourceVersion-guarded patch; Wait follows a pass to its end; the
// controller drives Apply from watches.
//
// Decide reads no clock and no cluster. The package imports client-go and
// controller-runtime but never the cmd package.
package flux
