// Package skew decides the upgrade rules that cannot be skipped, on the
// versions of package semver: the Kubernetes version-skew policy, minor by
// minor steps (Longhorn's upgrade-path enforcement), and Kubernetes ranges.
//
// It is pure: it imports only semver of this module, no cluster client,
// and never reads the clock or prints.
package skew
