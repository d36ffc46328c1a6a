// Package status decodes the sylva-units-status ConfigMap that Sylva writes
// once a release of the sylva-units chart has fully reconciled, and
// interprets it together with the sylva-units-status Kustomization and the
// sylva-units HelmRelease: which release is installed, whether a release is
// still in progress, whether another reconciliation pass is pending and
// whether it can start now.
//
// Decode turns the bytes of a ConfigMap (YAML or JSON, or a List holding it,
// as `kubectl get cm -o yaml` prints) into a Status; DecodeObservation also
// picks the Kustomization and HelmRelease out of such a List. Interpret takes
// an Observation (plain values, gathered by the caller) and returns a Report
// with WriteTable, WriteJSON and WriteYAML methods.
//
// The installed release, for a command that needs a starting point (plan
// without --from), comes from Status.Release or, equivalently,
// Report.InstalledRelease:
//
//	obs, err := status.DecodeObservation(data, status.DefaultHelmRelease) // or statuskube.Reader.Read
//	if err != nil { … }
//	rep := status.Interpret(obs)
//	if !rep.InstalledRelease.IsZero() { from = rep.InstalledRelease } // "1.6", "1.6-pre", "1.4"
//
// InstalledRelease is zero for a fresh install (rep.FreshInstall), a
// development branch, or a status that predates release tracking
// (rep.ReleaseSource tells which); the caller then needs --from.
//
// Assess and RequestOf are the one readiness rule (is a release in
// progress, which pass is asked for and was it passed on, may a pass start
// now) that Interpret, reconcile and the controller share.
//
// The package is pure: it reads no clock, prints nothing and imports no
// cluster client; it reads the Flux objects through helm-controller's and
// kustomize-controller's API types (apimachinery only). The live reader is
// status/statuskube.
package status
