package ci

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"

	"gitlab.com/sylva-projects/sylva-planner/envelope"
	"gitlab.com/sylva-projects/sylva-planner/planner"
	"gitlab.com/sylva-projects/sylva-planner/semver"
	"gitlab.com/sylva-projects/sylva-planner/skew"
)

// Node is a cluster node as verify sees it.
type Node struct {
	Name         string
	Kubelet      semver.Version
	ControlPlane bool
}

// Facts is what was read of the cluster after the upgrade.
type Facts struct {
	// Source names where the facts come from ("cluster CONTEXT", files).
	Source string
	// StatusFound is false when there is no sylva-units-status ConfigMap.
	StatusFound bool
	// StatusRelease is the release the status ConfigMap says is installed
	// (zero when it does not say); StatusPending is its
	// additional_reconciliation_required.
	StatusRelease semver.Version
	StatusPending bool
	// StatusPosition is, when a pass is pending or the release is short of
	// the target, where the status places
	// the cluster in the plan (planner.Locate's summary, as plan --status
	// and status --to say it); empty when it does not place it.
	StatusPosition string
	// StatusApplying says why a release is being applied now (planner.
	// Progress.Applying): the status then describes the release before
	// it; empty when none is, or the Flux objects were not read.
	StatusApplying string
	Nodes          []Node
	// Components are the running versions detected, by component name.
	Components map[string]semver.Version
}

// Result is one verification.
type Result struct {
	Check  string `json:"check"`
	OK     bool   `json:"ok"`
	Detail string `json:"detail"`
}

// Verification is the outcome of Verify.
type Verification struct {
	// Header's metadata is the plan's: the verification checks its final
	// state.
	envelope.Header
	From    string   `json:"from"`
	To      string   `json:"to"`
	Source  string   `json:"source"`
	Results []Result `json:"results"`
	OK      bool     `json:"ok"`
}

// Verify checks the facts against the final state of plan p: the status
// ConfigMap says the target release with no pass pending, and no release
// is being applied; control-plane
// nodes run the target Kubernetes minor; workers are within the kubelet
// skew and on the minor the plan leaves them; each stepped component the
// plan moves (Longhorn) runs the target version.
func Verify(p *planner.Plan, f Facts) *Verification {
	v := &Verification{Header: envelope.NewHeader("Verification", p.Metadata.Metadata), From: p.From.Release, To: p.To.Release, Source: f.Source}
	add := func(check string, ok bool, format string, args ...any) {
		v.Results = append(v.Results, Result{Check: check, OK: ok, Detail: fmt.Sprintf(format, args...)})
	}
	target := semver.MustParse(p.To.Release)
	switch {
	case !f.StatusFound:
		add("status", false, "no sylva-units-status ConfigMap")
	case f.StatusRelease.IsZero():
		add("status", false, "the sylva-units-status ConfigMap does not say which release is installed")
	case f.StatusRelease.CompareMinor(target) != 0 && f.StatusPosition != "":
		add("status", false, "the status says release %s, want %s: %s", f.StatusRelease, target, f.StatusPosition)
	case f.StatusRelease.CompareMinor(target) != 0:
		add("status", false, "the status says release %s, want %s", f.StatusRelease, target)
	case f.StatusPending:
		add("status", false, "release %s, but additional_reconciliation_required is still true: %s", f.StatusRelease, cmp.Or(f.StatusPosition, "a pass is pending"))
	case f.StatusApplying != "":
		add("status", false, "release %s, no pass pending, but a release is being applied now (%s): verify once it finishes", f.StatusRelease, f.StatusApplying)
	default:
		add("status", true, "release %s, no pass pending", f.StatusRelease)
	}

	cpTarget := semver.MustParse(p.To.Kubernetes)
	workersTarget := cpTarget
	if n := len(p.Passes); n > 0 {
		cpTarget = semver.MustParse(p.Passes[n-1].ControlPlane.To)
		workersTarget = semver.MustParse(p.Passes[n-1].Workers.To)
	}
	var cps, workers []Node
	for _, n := range f.Nodes {
		if n.ControlPlane {
			cps = append(cps, n)
		} else {
			workers = append(workers, n)
		}
	}
	if len(cps) == 0 {
		add("control-plane", false, "no control-plane node found (label node-role.kubernetes.io/control-plane)")
	} else if bad := nodesNotOn(cps, cpTarget); len(bad) > 0 {
		add("control-plane", false, "want Kubernetes %s on every control-plane node; %s", cpTarget.Short(), strings.Join(bad, ", "))
	} else {
		add("control-plane", true, "%d control-plane node(s) on Kubernetes %s", len(cps), cpTarget.Short())
	}
	switch {
	case len(workers) == 0:
		add("workers", true, "no worker node")
	default:
		// Kubelets are counted from the oldest API server that runs.
		apiserver := cpTarget
		for _, n := range cps {
			if n.Kubelet.CompareMinor(apiserver) < 0 {
				apiserver = n.Kubelet
			}
		}
		var skewed []string
		for _, n := range workers {
			if viol := skew.KubeletSkew(apiserver, n.Kubelet); viol != nil {
				skewed = append(skewed, n.Name+": "+viol.Message)
			}
		}
		bad := nodesNotOn(workers, workersTarget)
		switch {
		case len(skewed) > 0:
			add("workers", false, "kubelet skew: %s", strings.Join(skewed, "; "))
		case len(bad) > 0:
			add("workers", false, "the plan leaves workers on Kubernetes %s; %s", workersTarget.Short(), strings.Join(bad, ", "))
		default:
			add("workers", true, "%d worker(s) on Kubernetes %s, within the kubelet skew", len(workers), workersTarget.Short())
		}
	}
	if n := len(p.Passes); n > 0 {
		for _, c := range p.Passes[n-1].Components {
			if c.Name != "longhorn" {
				continue
			}
			want := semver.MustParse(c.To)
			got, ok := f.Components[c.Name]
			switch {
			case !ok:
				add(c.Name, false, "no running %s found; want %s", c.Name, want)
			case !got.Equal(want):
				add(c.Name, false, "%s %s runs, want %s", c.Name, got, want)
			default:
				add(c.Name, true, "%s %s", c.Name, got)
			}
		}
	}
	v.OK = !slices.ContainsFunc(v.Results, func(r Result) bool { return !r.OK })
	return v
}

func nodesNotOn(nodes []Node, minor semver.Version) []string {
	var bad []string
	for _, n := range nodes {
		if n.Kubelet.CompareMinor(minor) != 0 {
			bad = append(bad, fmt.Sprintf("%s runs %s", n.Name, n.Kubelet))
		}
	}
	slices.Sort(bad)
	return bad
}

// WriteTable writes one line per check, ✔ or ✘.
func (v *Verification) WriteTable(w io.Writer) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "Verify Sylva %s → %s (%s)\n\n", v.From, v.To, v.Source)
	for _, r := range v.Results {
		mark := "✔"
		if !r.OK {
			mark = "✘"
		}
		fmt.Fprintf(bw, "%s %-14s %s\n", mark, r.Check, r.Detail)
	}
	if v.OK {
		fmt.Fprintln(bw, "\nThe cluster is in the plan's final state.")
	} else {
		fmt.Fprintln(bw, "\nThe cluster is not in the plan's final state.")
	}
	return bw.Flush()
}

// Document is the JSON and YAML form of the verification, with its apiVersion,
// kind and metadata (envelope.WriteJSON and WriteYAML write it).
func (v *Verification) Document() any { return v }
