// Package skew parses the version strings found around a Sylva cluster
// (Sylva releases, Kubernetes and component versions) and decides the upgrade
// rules that cannot be skipped: the Kubernetes version-skew policy and
// Longhorn's upgrade-path enforcement.
//
// It is pure: it imports no other package of this module, no cluster client,
// and never reads the clock or prints.
package skew
