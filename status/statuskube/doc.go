// Package statuskube reads the state that package status interprets from a live
// cluster: Fetch, the one reader of a release namespace (the
// sylva-units-status ConfigMap, the sylva-units-status Kustomization and
// the sylva-units HelmRelease, through a controller-runtime client.Reader)
// that the status, verify and reconcile commands and the controller share,
// and ReadAll for every namespace under the same rule. An object, or a
// kind, that does not exist reads as nil; a malformed status value marks
// the snapshot invalid; any other failure is an error naming the object and
// the kubeconfig context. RESTConfig is the kubeconfig rule.
//
// No core package imports this one; commands and the reconciler do.
package statuskube
