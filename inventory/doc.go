// Package inventory gathers the facts the upgrade gate judges from what
// really runs: component versions detected from container images and
// labels, and node versions. Read reads manifests from files (kubectl get
// -o yaml dumps, Helm release Secrets); nothing here decides whether the
// upgrade is safe.
//
// It imports only skew from this module.
package inventory
