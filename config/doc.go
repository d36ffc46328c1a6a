// Package config holds no code: its folders are the controller's Kubernetes
// manifests (kustomize bases: default, manager, rbac, prometheus) and its
// tests check those manifests as shipped: kustomize builds them, the drain
// check finds nothing to fix in them, promtool accepts the alert rules and
// their unit tests, and on a real API server the admission policies let the
// controller's ServiceAccount change nothing but the reconcile annotations.
package config
