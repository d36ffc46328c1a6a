// Package kube reads the state that package status interprets from a live
// cluster: the sylva-units-status ConfigMap with a typed client, the
// sylva-units-status Kustomization and the sylva-units HelmRelease with the
// dynamic client, as plain status values. An object that does not exist
// reads as nil; any other failure is an error naming the object and the
// kubeconfig context.
//
// No core package imports this one; commands do.
package kube
