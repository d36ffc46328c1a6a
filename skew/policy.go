package skew

import (
	"fmt"

	"gitlab.com/sylva-projects/sylva-planner/semver"
)

// KubeletMaxLag returns how many minors a kubelet (and kube-proxy) may lag
// behind the oldest kube-apiserver of version apiserver: three from
// Kubernetes 1.28 on, two before (kubernetes.io/releases/version-skew-policy).
func KubeletMaxLag(apiserver semver.Version) int {
	if apiserver.CompareMinor(semver.Version{Major: 1, Minor: 28}) >= 0 {
		return 3
	}
	return 2
}

// Violation is a rule broken by a proposed version change. Code is stable
// and meant for tests and machines; Message is for people.
type Violation struct {
	Code    string
	Message string
}

// Stable codes of the violations this package reports.
const (
	CodeMinorSkip    = "minor-skip"
	CodeDowngrade    = "downgrade"
	CodeKubeletSkew  = "kubelet-skew"
	CodeKubeletNewer = "kubelet-newer"
	CodeMajorChange  = "major-change"
)

// ControlPlaneStep checks one control-plane upgrade from one Kubernetes
// version to the next: kube-apiserver never skips a minor and never goes
// back. It returns nil when the step is allowed (including staying put).
func ControlPlaneStep(from, to semver.Version) *Violation {
	if from.Major != to.Major {
		return &Violation{CodeMajorChange, fmt.Sprintf("control plane %s → %s changes the major version", from.Short(), to.Short())}
	}
	switch d := to.Minor - from.Minor; {
	case d < 0:
		return &Violation{CodeDowngrade, fmt.Sprintf("control plane %s → %s is a downgrade", from.Short(), to.Short())}
	case d > 1:
		return &Violation{CodeMinorSkip, fmt.Sprintf("control plane %s → %s skips %d minor(s); kube-apiserver upgrades one minor at a time", from.Short(), to.Short(), d-1)}
	}
	return nil
}

// KubeletSkew checks a kubelet (or kube-proxy) of version kubelet against the
// oldest kube-apiserver: never newer, at most KubeletMaxLag minors older.
func KubeletSkew(apiserver, kubelet semver.Version) *Violation {
	if apiserver.Major != kubelet.Major {
		return &Violation{CodeMajorChange, fmt.Sprintf("kubelet %s and kube-apiserver %s differ in major version", kubelet.Short(), apiserver.Short())}
	}
	lag := apiserver.Minor - kubelet.Minor
	if lag < 0 {
		return &Violation{CodeKubeletNewer, fmt.Sprintf("kubelet %s is newer than kube-apiserver %s", kubelet.Short(), apiserver.Short())}
	}
	if max := KubeletMaxLag(apiserver); lag > max {
		return &Violation{CodeKubeletSkew, fmt.Sprintf("kubelet %s lags kube-apiserver %s by %d minors; at most %d allowed", kubelet.Short(), apiserver.Short(), lag, max)}
	}
	return nil
}

// MinorStep checks an upgrade of a component that only upgrades from its
// previous minor, as Longhorn enforces since 1.5.0: patch upgrades within a
// minor and x.y → x.(y+1) are allowed; skipping a minor and any downgrade
// are refused. Staying on the same version is allowed.
func MinorStep(component string, from, to semver.Version) *Violation {
	if from.Major != to.Major {
		return &Violation{CodeMajorChange, fmt.Sprintf("%s %s → %s changes the major version", component, from, to)}
	}
	if to.Compare(from) < 0 {
		return &Violation{CodeDowngrade, fmt.Sprintf("%s %s → %s is a downgrade", component, from, to)}
	}
	if d := to.Minor - from.Minor; d > 1 {
		return &Violation{CodeMinorSkip, fmt.Sprintf("%s %s → %s skips %d minor(s); %s only upgrades from its previous minor", component, from, to, d-1, component)}
	}
	return nil
}
