package planner

import (
	"time"

	"gitlab.com/sylva-projects/sylva-planner/catalog"
	"gitlab.com/sylva-projects/sylva-planner/envelope"
	"gitlab.com/sylva-projects/sylva-planner/finding"
	"gitlab.com/sylva-projects/sylva-planner/semver"
)

// APIVersion and Kind identify the JSON and YAML documents of a plan.
const (
	APIVersion = envelope.APIVersion
	Kind       = "TransitionPlan"
)

// Input is everything Compute needs. Gather it first (flags, catalog,
// status), then decide.
type Input struct {
	Catalog *catalog.Catalog
	// From and To are Sylva releases; only their minor is used ("1.4.3" and
	// "1.4-pre" plan as 1.4).
	From, To semver.Version
	// FromSource says where From came from ("flag", or the status key it was
	// read from); it is echoed in the plan.
	FromSource string
	// Provider selects the full Kubernetes versions; empty means kubeadm.
	Provider catalog.Provider
	// Workers is the Kubernetes minor the workers run, when known; zero means
	// the control plane's (Kubernetes).
	Workers semver.Version
	// Cluster is the kind of cluster planned; empty means management.
	Cluster ClusterKind
	// Kubernetes is the minor the control plane runs; zero means the
	// management minor of From. KubernetesSource says where it was read
	// ("--kubernetes", "values k8s_version_short"); empty means the flag.
	Kubernetes       semver.Version
	KubernetesSource string
	// KubernetesTo is the minor a workload cluster ends on; zero keeps its
	// minor when the target's window holds it, else takes the window's
	// nearest minor. KubernetesToSource says where it was read.
	KubernetesTo       semver.Version
	KubernetesToSource string
	// AsOf is the date the plan is computed for; it only appears in the
	// header here, and drives calendar rules.
	AsOf        time.Time
	ToolVersion string
	// Progress is what the status ConfigMap says, when the source release
	// was read from it: while a further pass of a hop is pending the plan
	// starts at transition_from (From is ignored) and its Position says
	// which passes are done. nil plans from From with nothing done.
	Progress *TransitionState
	// Observed is what an inventory saw running; nil plans from the catalog.
	Observed *Observed
	// Overlay, when set, says why the helper values of the plan cannot be
	// generated (values generate's error for the same input; the plan
	// computed is given, so as not to compute it again, when it is the
	// input's own: nil when Progress or Observed shaped it), nil when
	// they can; a plan with passes then carries an
	// overlay-unavailable warning and its Next says to fix that first.
	Overlay func(Input, *Plan) error
	// Suppressions silence findings until they expire.
	Suppressions []Suppression
	// Baseline holds the findings of a previous report; nil means none.
	Baseline []Finding
	// Inputs name what the plan was computed from ("catalog embedded
	// 2026-11-30", "status FILE", "inventory DIR"), in the order read; they
	// are echoed in the plan's header.
	Inputs []string
	// Gate says when the plan fails the gate; the zero value fails on a
	// blocker and on verdict unknown.
	Gate GateOptions
	// Rerun is the command that computes this plan again, with every flag
	// it was computed with ("sylva-planner plan --from 1.4 --to 1.6
	// --workers 1.30"); empty means plan with --from and --to only. Next
	// repeats it.
	Rerun string
	// Selection is what the plan was told to read (cluster, namespace,
	// catalog, target, status file): every other command Next suggests
	// (status, reconcile, values generate) repeats it.
	Selection envelope.Selection
}

// Plan is the result of Compute. Its JSON field names are a public contract
// documented in docs/cli.md.
type Plan struct {
	APIVersion        string   `json:"apiVersion"`
	Kind              string   `json:"kind"`
	Metadata          Metadata `json:"metadata"`
	From              Endpoint `json:"from"`
	To                Endpoint `json:"to"`
	BootstrapProvider string   `json:"bootstrapProvider"`
	// Cluster says which cluster of the fleet the plan is for and its
	// Kubernetes minors.
	Cluster  Cluster   `json:"cluster"`
	Route    []string  `json:"route"`
	Passes   []Pass    `json:"passes"`
	Summary  Summary   `json:"summary"`
	Findings []Finding `json:"findings"`
	// Suppressed are the findings a suppression silenced; they count for
	// nothing.
	Suppressed []SuppressedFinding `json:"suppressed,omitempty"`
	Checks     []Check             `json:"checks"`
	Verdict    Verdict             `json:"verdict"`
	Score      int                 `json:"score"`
	// Gate is what the gate decided with the plan's GateOptions.
	Gate Gate `json:"gate"`
	// Position is where the cluster stands in the plan, when Input.Progress
	// was given (the source release read from the status).
	Position *Position `json:"position,omitempty"`
	// Next is the next command or action for the operator.
	Next string `json:"next"`

	// ranges holds what each component-k8s-range finding is about, until
	// finish merges them.
	ranges rangeIndex
}

// Metadata is the header of a plan document: the metadata of every
// document, and where the source release came from.
type Metadata struct {
	envelope.Metadata
	// FromSource says where the source release came from: "flag" or the
	// status ConfigMap key it was read from.
	FromSource string `json:"fromSource,omitempty"`
	// Inputs name what the plan was computed from, as Input.Inputs.
	Inputs []string `json:"inputs,omitempty"`
}

// Endpoint describes the cluster at the start or the end of the plan.
type Endpoint struct {
	Release    string `json:"release"`
	Kubernetes string `json:"kubernetes"`
	Longhorn   string `json:"longhorn,omitempty"`
}

// Trigger says what starts a pass.
type Trigger string

// Triggers.
const (
	// TriggerUpgrade: the sylva-units HelmRelease is upgraded to a new
	// release's chart (the first pass of each hop).
	TriggerUpgrade Trigger = "chart-upgrade"
	// TriggerReconciliation: an additional reconciliation of the same chart,
	// requested by the previous pass through the status ConfigMap.
	TriggerReconciliation Trigger = "additional-reconciliation"
)

// Pass is one reconciliation of the sylva-units HelmRelease.
type Pass struct {
	// Index counts passes from 1 over the whole route.
	Index int `json:"index"`
	// Release is the Sylva release whose chart this pass applies.
	Release string  `json:"release"`
	Trigger Trigger `json:"trigger"`
	// HopPass and HopPasses place the pass within its hop (pass 1 of 2).
	HopPass             int               `json:"hopPass"`
	HopPasses           int               `json:"hopPasses"`
	Values              Values            `json:"values"`
	ControlPlane        VersionChange     `json:"controlPlane"`
	Workers             WorkerChange      `json:"workers"`
	Components          []ComponentChange `json:"components"`
	ExpectedStatus      ExpectedStatus    `json:"expectedStatus"`
	RequestsAnotherPass bool              `json:"requestsAnotherPass"`
}

// Values are the helper values a pass sets in the sylva-units chart. The
// JSON names are the chart's value names.
type Values struct {
	SylvaRelease     string `json:"sylva_release"`
	TransitionFromN2 bool   `json:"transition_from_n-2"`
	K8sVersionShort  string `json:"k8s_version_short"`
	LonghornVersion  string `json:"longhorn_version,omitempty"`
	// MachineDeploymentsPaused is set only when the pass's chart reads it
	// (the catalog's hold_workers capability); nil otherwise, so no output
	// recommends a value the chart ignores.
	MachineDeploymentsPaused         *bool `json:"machine_deployments_paused,omitempty"`
	AdditionalReconciliationRequired bool  `json:"additional_reconciliation_required"`
}

// VersionChange is the control plane's Kubernetes minor before and after a
// pass, and the full version it is set to.
type VersionChange struct {
	From    string `json:"from"`
	To      string `json:"to"`
	Version string `json:"version,omitempty"`
}

// WorkerChange is the workers' (MachineDeployments') Kubernetes minor
// before and after a pass.
type WorkerChange struct {
	From string `json:"from"`
	To   string `json:"to"`
	// Paused is true when the machine deployments are held during the pass
	// so that workers roll once; only a chart that can hold them (the
	// catalog's hold_workers capability) does.
	Paused bool `json:"paused"`
	// Rolls is true when the workers are replaced during the pass.
	Rolls bool `json:"rolls"`
}

// ComponentChange is a component's version before and after a pass.
type ComponentChange struct {
	Name string `json:"name"`
	From string `json:"from"`
	To   string `json:"to"`
}

// ExpectedStatus is what the sylva-units-status ConfigMap must say once the
// pass has reconciled. The JSON names are the ConfigMap keys.
type ExpectedStatus struct {
	SylvaRelease                     string `json:"sylva_release"`
	AdditionalReconciliationRequired string `json:"additional_reconciliation_required"`
	// TransitionFrom and TransitionPass tell the next pass where the hop
	// is: the release it came from and the pass that just reconciled ("1",
	// "2", …). sylva_release alone cannot tell pass 2 from pass 3 of a
	// three-pass hop.
	TransitionFrom string `json:"transition_from"`
	TransitionPass string `json:"transition_pass"`
}

// Summary counts what the plan costs.
type Summary struct {
	Passes            int `json:"passes"`
	WorkerRollouts    int `json:"workerRollouts"`
	ControlPlaneSteps int `json:"controlPlaneSteps"`
	// Line is the one-line summary shown under the table.
	Line string `json:"line"`
}

// Severity ranks a finding (finding.Severity, the one severity of every
// command).
type Severity = finding.Severity

// Severities, highest first.
const (
	SeverityBlocker = finding.SeverityBlocker
	SeverityWarning = finding.SeverityWarning
	SeverityInfo    = finding.SeverityInfo
)

// Class says what a blocker waits for (finding.Class).
type Class = finding.Class

// Classes of blockers.
const (
	// ClassActionable: acting (upgrading, fixing) clears the blocker.
	ClassActionable = finding.ClassActionable
	// ClassWaiting: nothing can clear it until upstream ships a version.
	ClassWaiting = finding.ClassWaiting
	// ClassPinned: held on purpose by the catalog.
	ClassPinned = finding.ClassPinned
)

// Finding is one typed result of a check (finding.Finding, the one
// finding type of every command). Code is stable: tests and machines match
// on it.
type Finding = finding.Finding

// CompareFindings is the total order of findings in every output:
// severity, subject, code, message.
func CompareFindings(a, b Finding) int { return finding.Compare(a, b) }

// Verdict is the plan's overall answer.
type Verdict string

// Verdicts.
const (
	// VerdictReady: no blocker and every required check ran.
	VerdictReady Verdict = "ready"
	// VerdictBlocked: at least one actionable blocker.
	VerdictBlocked Verdict = "blocked"
	// VerdictHeld: every blocker waits on upstream or is pinned.
	VerdictHeld Verdict = "held"
	// VerdictUnknown: no blocker, but a required check was not assessed.
	VerdictUnknown Verdict = "unknown"
)

// CheckStatus says how far a check could look.
type CheckStatus string

// Check statuses.
const (
	CheckAssessed    CheckStatus = "assessed"
	CheckPartial     CheckStatus = "partial"
	CheckNotAssessed CheckStatus = "not-assessed"
)

// Check records one check of the plan and how it was assessed.
type Check struct {
	Name     string      `json:"name"`
	Required bool        `json:"required"`
	Status   CheckStatus `json:"status"`
	Detail   string      `json:"detail"`
}

// Stable finding codes.
const (
	CodeSameRelease          = "same-release"
	CodeNoRoute              = "no-route"
	CodeMultiHopRoute        = "multi-hop-route"
	CodeExtraReconciliations = "extra-reconciliations"
	CodeWorkerExtraRollout   = "worker-extra-rollout"
	CodeComponentK8sRange    = "component-k8s-range"
	CodeMissingK8sVersion    = "missing-kubernetes-version"
	CodeMissingStepVersion   = "missing-intermediate-version"
	CodeKubeletSkew          = "kubelet-skew"
	CodeControlPlaneSkip     = "control-plane-minor-skip"
	CodeStepSkip             = "component-minor-skip"
	CodePrereleaseSource     = "prerelease-source"
	CodePrereleaseTarget     = "prerelease-target"
)
