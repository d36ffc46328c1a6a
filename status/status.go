package status

import "gitlab.com/sylva-projects/sylva-planner/semver"

// Names and namespace Sylva uses for the objects this package reads.
const (
	// ConfigMapName is the name of the status ConfigMap, in the release namespace.
	ConfigMapName = "sylva-units-status"
	// KustomizationName is the name of the Flux Kustomization that writes the ConfigMap.
	KustomizationName = "sylva-units-status"
	// DefaultHelmRelease is the name of the sylva-units HelmRelease.
	DefaultHelmRelease = "sylva-units"
	// DefaultNamespace is the release namespace of a management cluster; a
	// workload cluster's is its own namespace in the management cluster.
	DefaultNamespace = "sylva-system"
)

// Keys of the ConfigMap's data this package decodes. Any other key is kept
// in Status.Unknown.
const (
	// KeySylvaRelease is the Sylva release ("1.6", "1.6-pre" on main during
	// the 1.6 cycle), written from the n-2 upgrade work on.
	KeySylvaRelease = "sylva_release"
	// KeyAdditionalReconciliationRequired is "true" when the pass that wrote
	// the status asks for one more reconciliation of sylva-units.
	KeyAdditionalReconciliationRequired = "additional_reconciliation_required"
	// KeyReleaseRevision is the Helm revision of the sylva-units release.
	KeyReleaseRevision = "release-revision"
	// KeyChartVersion is the sylva-units chart version ("1.4.3", or
	// "0.0.0-git-…" for a development build).
	KeyChartVersion = "sylva-units-chart-version"
	// KeyReleaseTime is the time the release was rendered, as Sylva wrote it.
	KeyReleaseTime = "release-time"
	// KeyValuesChecksum is the checksum of the sylva-units values.
	KeyValuesChecksum = "values-checksum"
	// KeyOneShotUnits is a YAML map of one-shot unit name to state ("done").
	KeyOneShotUnits = "one-shot-units"
	// KeyEnabledUnits lists the enabled units.
	KeyEnabledUnits = "enabled-units"
	// KeyAdditionalInfo is the YAML of the chart's
	// additional_sylva_units_status_info value (free text for older
	// writers). The chart writes nothing else of its values into the
	// ConfigMap, so the keys of InfoKeys are read from it too.
	KeyAdditionalInfo = "additional-info"
	// KeySylvaBranch is the sylva-core branch ("main", "release-1.7").
	KeySylvaBranch = "sylva_branch"
	// KeyTransitionFrom and KeyTransitionPass record, during a transition,
	// the release the hop started from and the pass that completed; the
	// helper values of `values generate` write them (a three-pass hop needs
	// them to tell its passes apart).
	KeyTransitionFrom = "transition_from"
	KeyTransitionPass = "transition_pass"
)

// InfoKeys are the keys read from the YAML map of additional-info when the
// data has no key of that name: a key of data wins over the same key of
// additional-info.
var InfoKeys = []string{KeySylvaRelease, KeyAdditionalReconciliationRequired, KeyTransitionFrom, KeyTransitionPass}

// Status is the decoded sylva-units-status ConfigMap. A field is zero when
// its key is absent.
type Status struct {
	// Name and Namespace are the ConfigMap's.
	Name      string `json:"name"`
	Namespace string `json:"namespace,omitempty"`
	// SylvaRelease is sylva_release; zero when absent (Sylva ≤ 1.5).
	SylvaRelease semver.Version `json:"sylvaRelease,omitzero"`
	// AdditionalReconciliationRequired is nil when the key is absent.
	// JSON and YAML write it as the ConfigMap holds it, a string ("true",
	// as the chart writes it and the helper values of a plan say it).
	AdditionalReconciliationRequired *bool  `json:"additionalReconciliationRequired,omitempty,string"`
	ReleaseRevision                  string `json:"releaseRevision,omitempty"`
	// ChartVersion is kept as written; Release interprets it.
	ChartVersion   string `json:"chartVersion,omitempty"`
	ReleaseTime    string `json:"releaseTime,omitempty"`
	ValuesChecksum string `json:"valuesChecksum,omitempty"`
	// OneShotUnits maps a one-shot unit to its state, usually "done".
	OneShotUnits map[string]string `json:"oneShotUnits,omitempty"`
	// EnabledUnits is sorted and without duplicates.
	EnabledUnits   []string `json:"enabledUnits,omitempty"`
	AdditionalInfo string   `json:"additionalInfo,omitempty"`
	SylvaBranch    string   `json:"sylvaBranch,omitempty"`
	// TransitionFrom and TransitionPass are transition_from and
	// transition_pass, as written ("1.4", "1").
	TransitionFrom string `json:"transitionFrom,omitempty"`
	TransitionPass string `json:"transitionPass,omitempty"`
	// FromAdditionalInfo lists, in InfoKeys order, the keys that were read
	// from additional-info rather than from the data.
	FromAdditionalInfo []string `json:"fromAdditionalInfo,omitempty"`
	// Contradicts names each of InfoKeys that the data and the YAML of
	// additional-info (where the chart writes it) both give, with other
	// values: `additional_reconciliation_required: data "false",
	// additional-info "true"`. The data's value is the one read; a hand
	// edit of the data is the usual cause.
	Contradicts []string `json:"contradicts,omitempty"`
	// Unknown holds every other data key, as written.
	Unknown map[string]string `json:"unknown,omitempty"`
	// UID and ResourceVersion are the ConfigMap's metadata.uid and
	// metadata.resourceVersion (FromConfigMap; a file has them when
	// kubectl printed them). The UID and the data the chart writes
	// identify the write a request derived from the status is bound to
	// (RequestOf, Write); an empty UID means the write is unknown. The
	// resourceVersion, which any write of the metadata changes too, is no
	// part of it. Not printed.
	UID             string `json:"-"`
	ResourceVersion string `json:"-"`
	// DataWriters are the field managers of each key of the data, from
	// metadata.managedFields (key → sorted managers); nil when the
	// managedFields are unknown (a file printed without them). A pass is
	// requested only by the chart's write (ChartWriter, ForeignWrite). Not
	// printed.
	DataWriters map[string][]string `json:"-"`
}
