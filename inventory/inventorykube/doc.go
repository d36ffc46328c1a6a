// Package inventorykube reads the facts of package inventory from a live cluster, in
// one read-only pass of paginated lists (Limit/Continue): nodes, pods,
// deployments, statefulsets, PodDisruptionBudgets with their status, the
// API versions objects were written with, Helm release Secrets and, when
// allowed, the API server's apiserver_requested_deprecated_apis metric.
//
// Every capability is reported as a check: a list the cluster refuses
// (403) makes it partial or not assessed, never clean. No core package
// imports this one; commands do.
package inventorykube
