// Package action runs the use case of each command: one request and its
// Run per command (plan, report, drain-check, prune-audit, verify, the
// values commands, ci-matrix, catalog import, reconcile, status -A and
// plan -A). It reads each source, behind small interfaces, once, calls
// the core, and returns the result and its Outcome.
//
// It is the application layer between the command line and the core: it
// reads no clock (the date comes in as AsOf, the clock of a wait with the
// reconciler's Applier), no environment and no standard stream, and
// builds no cluster client. A live cluster reaches it as a StatusSource,
// a FactsSource, a FleetSource or an Applier the command line built.
package action
