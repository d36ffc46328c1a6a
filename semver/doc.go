// Package semver holds the one version type of the module: the version
// strings found around a Sylva cluster (Sylva releases such as 1.6 and
// 1.6-pre, Kubernetes versions such as v1.31.8+rke2r1, component
// versions), parsed, compared and stepped minor by minor.
//
// It is pure: it imports no other package of this module, no cluster
// client, and never reads the clock or prints.
package semver
