// Package inventory gathers the facts the upgrade gate judges from what
// really runs: component versions detected from container images and
// labels, node versions, the API versions objects were written with, and
// the drain model (nodes, pods, workloads, PodDisruptionBudgets). Read and
// Scan read manifests from files (kubectl get -o yaml dumps, multi-document
// files, Helm release Secrets), one worker per processor, with results in
// the order of the files; package inventory/inventorykube reads the same facts live.
// Of Helm releases, only the newest deployed revision of each is read,
// within bounds a gzip bomb cannot pass (MaxReleaseBytes and the others).
// Nothing here decides whether the upgrade is safe.
//
// It imports skew, planner, apis, availability and yamldoc from this
// module, and no cluster client (inventory/inventorykube holds client-go).
package inventory
