// Package availability decides whether nodes can be drained without hanging
// and without evicting every replica of a service at once: PodDisruptionBudgets
// that allow zero evictions, overlapping budgets, and the workload defaults of
// the platform's availability rules (replicas, preStop, grace period, spread).
//
// It is pure: it reads a Snapshot gathered elsewhere (package inventory, live
// or from manifests) and returns typed findings. It never imports a cluster
// client, never reads the clock and never prints except to the writer it is
// given.
package availability
