package overlay

import (
	"slices"

	"gitlab.com/sylva-projects/sylva-planner/status"
)

// Names of the pass values: the plan's value names (the JSON names of
// planner.Values, which a test ties to these). The ones the status
// ConfigMap keeps between passes are the status package's keys, spelled
// there once (see docs/values.md).
const (
	KeySylvaRelease                     = status.KeySylvaRelease
	KeyTransitionFromN2                 = "transition_from_n-2"
	KeyK8sVersionShort                  = "k8s_version_short"
	KeyLonghornVersion                  = "longhorn_version"
	KeyMachineDeploymentsPaused         = "machine_deployments_paused"
	KeyAdditionalReconciliationRequired = status.KeyAdditionalReconciliationRequired
	// KeyTransitionFrom is the release a multi-pass transition started
	// from; the status ConfigMap keeps it between passes.
	KeyTransitionFrom = status.KeyTransitionFrom
	// KeyTransitionPass is the number (from 1) of the pass of the current
	// hop that wrote the status.
	KeyTransitionPass = status.KeyTransitionPass
	// KeyLonghornChartVersion is the Helm chart version of Longhorn's
	// version (a Rancher chart version such as 105.2.0+up1.8.1).
	KeyLonghornChartVersion = "longhorn_chart_version"
	// KeySylvaBranch is the status key naming the branch whose chart wrote
	// it (release-1.5, main); the overlay reads the release of a release
	// branch as status.Status.Release does.
	KeySylvaBranch = status.KeySylvaBranch
)

// Where the generated values live in the sylva-units values.
const (
	// StateKey is the key, under _internal.state, of the pass values as a
	// JSON object. The chart interprets _internal.state before anything
	// else, so every other value reads it already computed.
	StateKey = "release_transition"
	// StatusInfoKey is the chart's value whose YAML the sylva-units-status
	// Kustomization writes into the status ConfigMap's additional-info.
	StatusInfoKey = "additional_sylva_units_status_info"
	// AdditionalInfo is the status ConfigMap key holding that YAML.
	AdditionalInfo = "additional-info"
)

// statusKeys are the pass values the overlay records in the status
// ConfigMap (through additional-info) for the next pass to read.
var statusKeys = []string{KeySylvaRelease, KeyAdditionalReconciliationRequired, KeyTransitionFrom, KeyTransitionPass}

// StatusKeys are the pass values the overlay records in the status
// ConfigMap for the next pass to read, in the order it writes them.
func StatusKeys() []string { return slices.Clone(statusKeys) }

// LegacyRelease is the newest release whose status ConfigMap has no
// sylva_release key: a ConfigMap without it, written by a development
// chart, was written by this release or an older one.
const LegacyRelease = "1.4"
