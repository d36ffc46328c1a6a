package planner

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"gitlab.com/sylva-projects/sylva-planner/cell"
	"gitlab.com/sylva-projects/sylva-planner/envelope"
	"gitlab.com/sylva-projects/sylva-planner/status"
)

// This file is the fleet plan: the plan to one target of every sylva-units
// release a management cluster holds, ordered by what can start now.

// FleetPlanKind is the kind of the fleet plan's JSON and YAML document.
const FleetPlanKind = "FleetPlan"

// Standing says where a release of the fleet stands for the plan to the
// target, in the order the fleet plan lists them.
type Standing string

const (
	// StandingReady means the plan's verdict is ready and a pass may start now.
	StandingReady Standing = "ready"
	// StandingInProgress means a release or a requested pass is being applied;
	// wait for it.
	StandingInProgress Standing = "in-progress"
	// StandingHeld means every blocker of the plan waits on upstream or is
	// pinned.
	StandingHeld Standing = "held"
	// StandingBlocked means the plan has an actionable blocker, or a pass may
	// not start now (a suspended or not Ready HelmRelease, say).
	StandingBlocked Standing = "blocked"
	// StandingUnknown means the plan's verdict is unknown (a required check was
	// not assessed) and the gate does not let it pass.
	StandingUnknown Standing = "unknown"
	// StandingDone means the release is on the target and no pass is pending.
	StandingDone Standing = "done"
	// StandingUnplanned means no plan could be computed (an unreadable status,
	// a fresh install, a release the status does not name).
	StandingUnplanned Standing = "unplanned"
)

// rank orders standings: what can start now first.
func (s Standing) rank() int {
	switch s {
	case StandingReady:
		return 0
	case StandingInProgress:
		return 1
	case StandingHeld:
		return 2
	case StandingBlocked:
		return 3
	case StandingUnknown:
		return 4
	case StandingDone:
		return 5
	case StandingUnplanned:
	}
	return 6
}

// FleetPlanRow is one release of the fleet plan.
type FleetPlanRow struct {
	Namespace string `json:"namespace"`
	// Release, ChartVersion, State and CanStartNow are the release's
	// status (status.FleetRow).
	Release      string           `json:"release,omitempty"`
	ChartVersion string           `json:"chartVersion,omitempty"`
	State        status.PassState `json:"state"`
	CanStartNow  bool             `json:"canStartNow"`
	Standing     Standing         `json:"standing"`
	// Verdict is the plan's; empty when there is no plan.
	Verdict Verdict `json:"verdict,omitempty"`
	// Position is where the release stands in its plan ("1 of 2 passes
	// done"); empty when there is no plan.
	Position string `json:"position,omitempty"`
	// Why says in one line why the release is not ready; empty when it is.
	Why string `json:"why,omitempty"`
	// Next is the next command or action for this release.
	Next string `json:"next"`
	// Error says why no plan was computed (StandingUnplanned).
	Error string `json:"error,omitempty"`
	// Plan is the release's plan, as plan writes it for its namespace
	// alone; nil when none was computed.
	Plan *Plan `json:"plan,omitempty"`
}

// FleetPlanRowOf is the row of the release whose status is row, planned as
// p (nil with err when no plan could be computed). detail is the command
// that plans the release alone, suggested when the plan is what to read
// next.
func FleetPlanRowOf(row status.FleetRow, p *Plan, err error, detail string) FleetPlanRow {
	r := FleetPlanRow{
		Namespace: row.Namespace, Release: row.Release, ChartVersion: row.ChartVersion,
		State: row.State, CanStartNow: row.CanStartNow, Plan: p, Next: detail,
	}
	switch {
	case row.Error != "":
		r.Standing, r.Error, r.Next = StandingUnplanned, row.Error, row.Next
		r.Why = r.Error
		return r
	case row.State == status.StateInProgress || row.State == status.StateInstalling:
		// Whatever the plan says, nothing starts before this ends.
		r.Standing, r.Next = StandingInProgress, row.Next
		r.Why = "a release is being applied"
		if row.State == status.StateInstalling {
			r.Why = "the first release is being applied"
		}
		if p != nil {
			r.Verdict, r.Position = p.Verdict, positionCell(p.Position)
		}
		return r
	case err != nil || p == nil:
		r.Standing, r.Next = StandingUnplanned, row.Next
		if err != nil {
			r.Error = err.Error()
		}
		r.Why = r.Error
		return r
	}
	r.Verdict = p.Verdict
	r.Position = positionCell(p.Position)
	pos := p.Position
	switch {
	case pos != nil && pos.PassKnown && pos.Next == nil && !pos.PassPending:
		r.Standing, r.Next = StandingDone, "none: the release is on "+p.To.Release
	case p.Verdict == VerdictHeld:
		r.Standing, r.Why = StandingHeld, firstBlocker(p)
	case p.Verdict == VerdictBlocked:
		r.Standing, r.Why = StandingBlocked, firstBlocker(p)
	case p.Verdict == VerdictUnknown && p.Gate.Outcome != GatePass:
		r.Standing, r.Why = StandingUnknown, p.Gate.Reason
	case !row.CanStartNow:
		r.Standing, r.Why = StandingBlocked, strings.Join(row.Reasons, "; ")
	default:
		r.Standing = StandingReady
		if row.State == status.StatePassPending {
			// The pass the plan wants is the one the status asks for.
			r.Next = row.Next
		}
	}
	return r
}

// positionCell is where a plan's release stands, in a table cell.
func positionCell(pos *Position) string {
	switch {
	case pos == nil:
		return ""
	case !pos.PassKnown:
		return "not placed"
	case pos.PassesDone >= pos.Passes:
		return "done"
	}
	return fmt.Sprintf("%d of %d passes done", pos.PassesDone, pos.Passes)
}

func firstBlocker(p *Plan) string {
	for _, f := range p.Findings {
		if f.Severity == SeverityBlocker {
			return f.Code + " (" + f.Subject + "): " + f.Message
		}
	}
	return p.Gate.Reason
}

// FleetPlan is the plan to one target of every release of a cluster.
type FleetPlan struct {
	// Metadata is written at the head of JSON and YAML output; the caller
	// sets it.
	Metadata envelope.Metadata `json:"-"`
	Target   string            `json:"target"`
	// FactsNamespace is the namespace whose plan judged the facts read
	// from the cluster (drains, removed APIs, running versions): the
	// management cluster's release. The releases of workload clusters are
	// planned without them. Empty when no cluster was read.
	FactsNamespace string `json:"clusterFactsNamespace,omitempty"`
	// Releases are ordered by Standing (what can start now first), then
	// namespace.
	Releases []FleetPlanRow `json:"releases"`
	// Waves are the fleet's order (Order): which releases move when; empty
	// when the fleet has no management release.
	Waves []Wave `json:"waves,omitempty"`
	// Findings are the fleet's own: a workload cluster ahead of its
	// management cluster, an order that cannot exist.
	Findings []Finding `json:"findings,omitempty"`
	// Exit says the exit code of plan -A and which releases make it; nil
	// when the caller does not set it.
	Exit *FleetExit `json:"exit,omitempty"`
	// Program is how the user runs the tool (envelope.Selection.Program),
	// for the commands the table suggests; empty is
	// envelope.DefaultProgram. The caller sets it.
	Program string `json:"-"`
}

// FleetExit is the exit code of the fleet plan and what makes it.
type FleetExit struct {
	Code    int    `json:"code"`
	Outcome string `json:"outcome"`
	Reason  string `json:"reason"`
	// Namespaces are the releases that make the code ("fleet order" for
	// the order's blockers), sorted as the table lists them.
	Namespaces []string `json:"namespaces,omitempty"`
}

// NewFleetPlan orders rows by what can start now: ready, in progress,
// held, blocked, unknown, done, unplanned; then by namespace.
func NewFleetPlan(target string, rows []FleetPlanRow) FleetPlan {
	rows = slices.Clone(rows)
	if rows == nil {
		rows = []FleetPlanRow{}
	}
	slices.SortFunc(rows, func(a, b FleetPlanRow) int {
		return cmp.Or(cmp.Compare(a.Standing.rank(), b.Standing.rank()), cmp.Compare(a.Namespace, b.Namespace))
	})
	return FleetPlan{Target: target, Releases: rows}
}

// Outcome is the gate's outcome over the fleet: fail when a plan fails
// the gate, else held when one is held, else pass. Releases without a plan
// do not count (Unplanned counts them).
func (f FleetPlan) Outcome() GateOutcome {
	if f.fleetBlocked() {
		return GateFail
	}
	out := GatePass
	for _, r := range f.Releases {
		if r.Plan == nil {
			continue
		}
		switch r.Plan.Gate.Outcome {
		case GateFail:
			return GateFail
		case GateHeld:
			out = GateHeld
		case GatePass:
		}
	}
	return out
}

// Unplanned counts the releases for which no plan was computed.
func (f FleetPlan) Unplanned() int {
	n := 0
	for _, r := range f.Releases {
		if r.Standing == StandingUnplanned {
			n++
		}
	}
	return n
}

type fleetPlanDocument struct {
	envelope.Header
	FleetPlan
}

// Document is the JSON and YAML form of f, every plan in full, with its apiVersion,
// kind and metadata (envelope.WriteJSON and WriteYAML write it).
func (f FleetPlan) Document() any {
	return fleetPlanDocument{envelope.NewHeader(FleetPlanKind, f.Metadata), f}
}

// WriteTable writes f for a person: one line per release in its order
// (namespace, installed release, standing, verdict, position, next), then
// why each release that is not ready is not.
func (f FleetPlan) WriteTable(w io.Writer) error {
	var b strings.Builder
	n := map[Standing]int{}
	for _, r := range f.Releases {
		n[r.Standing]++
	}
	var parts []string
	for _, s := range []Standing{StandingReady, StandingInProgress, StandingHeld, StandingBlocked, StandingUnknown, StandingDone, StandingUnplanned} {
		if n[s] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n[s], s))
		}
	}
	word := "releases"
	if len(f.Releases) == 1 {
		word = "release"
	}
	fmt.Fprintf(&b, "Plan to Sylva %s of %d %s", f.Target, len(f.Releases), word)
	if len(parts) > 0 {
		fmt.Fprintf(&b, ": %s", strings.Join(parts, ", "))
	}
	fmt.Fprintf(&b, " (as of %s)\n\n", f.Metadata.AsOf)
	if len(f.Releases) == 0 {
		b.WriteString("No sylva-units release in any namespace.\n")
		_, err := io.WriteString(w, b.String())
		return err
	}
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAMESPACE\tCLUSTER\tFROM\tKUBERNETES\tSTANDING\tVERDICT\tPOSITION\tNEXT")
	for _, r := range f.Releases {
		from := r.Release
		kind, kube := "", ""
		if r.Plan != nil {
			if r.Plan.From.Release != "" && r.Plan.From.Release != r.Release {
				// In a hop: the plan starts where the hop did (transition_from).
				from = r.Plan.From.Release + " (on " + r.Release + ")"
			}
			kind, kube = string(r.Plan.Cluster.Kind), r.Plan.Cluster.Kubernetes+" → "+r.Plan.Cluster.KubernetesTo
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.Namespace, cell.OrDash(kind), cell.OrDash(from), cell.OrDash(kube), r.Standing, cell.OrDash(string(r.Verdict)), cell.OrDash(r.Position), r.Next)
	}
	_ = tw.Flush()
	first := true
	for _, r := range f.Releases {
		if r.Why == "" {
			continue
		}
		if first {
			b.WriteString("\nWhy not ready:\n")
			first = false
		}
		fmt.Fprintf(&b, "  %s: %s\n", r.Namespace, r.Why)
	}
	if len(f.Waves) > 0 {
		b.WriteString("\nWaves (the fleet's order):\n")
		for _, w := range f.Waves {
			fmt.Fprintf(&b, "  %s\n", w.line())
		}
	}
	if len(f.Findings) > 0 {
		b.WriteString("\nFleet findings:\n")
		for _, x := range f.Findings {
			fmt.Fprintf(&b, "  %s %s (%s): %s\n", strings.ToUpper(string(x.Severity)), x.Code, x.Subject, x.Message)
			if x.Remediation != "" {
				fmt.Fprintf(&b, "      fix: %s\n", x.Remediation)
			}
		}
	}
	if e := f.Exit; e != nil {
		fmt.Fprintf(&b, "\nExit %d: %s", e.Code, e.Reason)
		if len(e.Namespaces) > 0 {
			fmt.Fprintf(&b, " (%s)", strings.Join(e.Namespaces, ", "))
		}
		b.WriteString("\n")
	}
	if f.FactsNamespace != "" && slices.ContainsFunc(f.Releases, func(r FleetPlanRow) bool { return r.Plan != nil && r.Namespace != f.FactsNamespace }) {
		fmt.Fprintf(&b, "\nCluster facts (drains, removed APIs, running versions) judge the plan of %s only: a workload\n"+
			"cluster's nodes and workloads are in that cluster, so its release is planned without them; check them\n"+
			"there, filling in its kubeconfig: %s drain-check --kubeconfig <the workload cluster's kubeconfig>\n", f.FactsNamespace, cmp.Or(f.Program, envelope.DefaultProgram))
	}
	_, err := io.WriteString(w, b.String())
	return err
}
