package planner_test

import (
	"errors"
	"slices"
	"testing"

	"gitlab.com/sylva-projects/sylva-planner/planner"
	"gitlab.com/sylva-projects/sylva-planner/status"
)

func TestFleetPlanRowOf(t *testing.T) {
	ready := status.FleetRow{Namespace: "a", Release: "1.4", State: status.StateDone, CanStartNow: true, Reasons: []string{}, Next: "status next"}
	pending := ready
	pending.State = status.StatePassPending
	suspended := ready
	suspended.CanStartNow, suspended.Reasons = false, []string{"HelmRelease sylva-units is suspended"}
	running := ready
	running.State, running.CanStartNow = status.StateInProgress, false
	unreadable := status.FleetRow{Namespace: "a", State: status.StateUnreadable, Error: "data key x", Next: "inspect it"}

	notStarted := &planner.Position{Passes: 2, PassKnown: true, Next: &planner.Pass{Index: 1}}
	plan := func(v planner.Verdict, o planner.GateOutcome, pos *planner.Position) *planner.Plan {
		p := &planner.Plan{Verdict: v, Gate: planner.Gate{Outcome: o, Reason: "gate says"}, Position: pos, To: planner.Endpoint{Release: "1.6"}}
		if v == planner.VerdictBlocked || v == planner.VerdictHeld {
			p.Findings = []planner.Finding{{Code: "k8s-minor-skip", Severity: planner.SeverityBlocker, Subject: "kubernetes", Message: "skips"}}
		}
		return p
	}
	tests := []struct {
		name     string
		row      status.FleetRow
		plan     *planner.Plan
		err      error
		standing planner.Standing
		next     string
		why      string
	}{
		{name: "a ready plan on a release that may start is ready and points at its plan", row: ready, plan: plan(planner.VerdictReady, planner.GatePass, notStarted), standing: planner.StandingReady, next: "detail"},
		{name: "a ready plan whose pass is pending points at reconcile", row: pending, plan: plan(planner.VerdictReady, planner.GatePass, notStarted), standing: planner.StandingReady, next: "status next"},
		{name: "a release being applied waits whatever its plan says", row: running, plan: plan(planner.VerdictBlocked, planner.GateFail, notStarted), standing: planner.StandingInProgress, next: "status next", why: "a release is being applied"},
		{name: "a held plan is held", row: ready, plan: plan(planner.VerdictHeld, planner.GateHeld, notStarted), standing: planner.StandingHeld, next: "detail", why: "k8s-minor-skip (kubernetes): skips"},
		{name: "a blocked plan is blocked", row: ready, plan: plan(planner.VerdictBlocked, planner.GateFail, notStarted), standing: planner.StandingBlocked, next: "detail", why: "k8s-minor-skip (kubernetes): skips"},
		{name: "an unknown verdict the gate refuses is unknown", row: ready, plan: plan(planner.VerdictUnknown, planner.GateFail, notStarted), standing: planner.StandingUnknown, next: "detail", why: "gate says"},
		{name: "an unknown verdict the gate lets pass is ready", row: ready, plan: plan(planner.VerdictUnknown, planner.GatePass, notStarted), standing: planner.StandingReady, next: "detail"},
		{name: "a ready plan on a suspended HelmRelease is blocked by it", row: suspended, plan: plan(planner.VerdictReady, planner.GatePass, notStarted), standing: planner.StandingBlocked, next: "detail", why: "HelmRelease sylva-units is suspended"},
		{name: "a release on the target is done", row: ready, plan: plan(planner.VerdictReady, planner.GatePass, &planner.Position{PassKnown: true}), standing: planner.StandingDone, next: "none: the release is on 1.6"},
		{name: "an unreadable status is unplanned", row: unreadable, standing: planner.StandingUnplanned, next: "inspect it", why: "data key x"},
		{name: "a status no plan can start from is unplanned", row: ready, err: errors.New("no release"), standing: planner.StandingUnplanned, next: "status next", why: "no release"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := planner.FleetPlanRowOf(tc.row, tc.plan, tc.err, "detail")
			if got.Standing != tc.standing || got.Next != tc.next || got.Why != tc.why {
				t.Errorf("FleetPlanRowOf = standing %s, next %q, why %q; want %s, %q, %q", got.Standing, got.Next, got.Why, tc.standing, tc.next, tc.why)
			}
		})
	}
}

func TestNewFleetPlanOrdersByWhatCanStartNow(t *testing.T) {
	rows := []planner.FleetPlanRow{
		{Namespace: "z-unplanned", Standing: planner.StandingUnplanned},
		{Namespace: "b-blocked", Standing: planner.StandingBlocked, Plan: &planner.Plan{Gate: planner.Gate{Outcome: planner.GateFail}}},
		{Namespace: "y-done", Standing: planner.StandingDone},
		{Namespace: "c-held", Standing: planner.StandingHeld, Plan: &planner.Plan{Gate: planner.Gate{Outcome: planner.GateHeld}}},
		{Namespace: "d-ready", Standing: planner.StandingReady, Plan: &planner.Plan{Gate: planner.Gate{Outcome: planner.GatePass}}},
		{Namespace: "a-ready", Standing: planner.StandingReady, Plan: &planner.Plan{Gate: planner.Gate{Outcome: planner.GatePass}}},
		{Namespace: "e-running", Standing: planner.StandingInProgress},
		{Namespace: "f-unknown", Standing: planner.StandingUnknown},
	}
	fp := planner.NewFleetPlan("1.6", rows)
	var got []string
	for _, r := range fp.Releases {
		got = append(got, r.Namespace)
	}
	want := []string{"a-ready", "d-ready", "e-running", "c-held", "b-blocked", "f-unknown", "y-done", "z-unplanned"}
	if !slices.Equal(got, want) {
		t.Errorf("NewFleetPlan order %q, want %q", got, want)
	}
	if fp.Outcome() != planner.GateFail || fp.Unplanned() != 1 {
		t.Errorf("Outcome %s, Unplanned %d; want fail, 1", fp.Outcome(), fp.Unplanned())
	}
	if o := planner.NewFleetPlan("1.6", rows[3:6]).Outcome(); o != planner.GateHeld {
		t.Errorf("Outcome without a failing plan = %s, want held", o)
	}
}
