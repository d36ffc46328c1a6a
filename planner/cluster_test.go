package planner_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"gitlab.com/sylva-projects/sylva-planner/internal/catalogtest"
	"gitlab.com/sylva-projects/sylva-planner/planner"
	"gitlab.com/sylva-projects/sylva-planner/semver"
)

// passLine is one pass as these tests read it: "release trigger cp→cp
// workers-roll longhorn→longhorn".
func passLine(ps planner.Pass) string {
	lh := "-"
	for _, c := range ps.Components {
		if c.Name == "longhorn" {
			lh = c.From + "→" + c.To
		}
	}
	roll := "keep"
	if ps.Workers.Rolls {
		roll = "roll"
	}
	return fmt.Sprintf("%s %s %s→%s %s %s", ps.Release, ps.Trigger, ps.ControlPlane.From, ps.ControlPlane.To, roll, lh)
}

// A workload cluster keeps its Kubernetes minor while the target's window
// holds it, and otherwise steps one minor per pass, each on a chart that
// maps it, stepping on the release it runs when the target's chart
// cannot take it yet. The management cluster is planned as before.
func TestWorkloadClustersKeepTheirMinorInsideEachWindow(t *testing.T) {
	cat := catalogtest.Default(t)
	for _, tc := range []struct {
		name           string
		cluster        planner.ClusterKind
		from, to       string
		kube, kubeTo   string
		want           []string
		wantRoute      string
		wantKubeTo     string
		wantCodes      []string
		wantNotCodes   []string
		wantRollouts   int
		wantCPChanges  int
		wantFinalMinor string
	}{
		{
			name: "the management cluster of 1.4 steps 1.31 → 1.32 → 1.33 on the way to 1.6", cluster: planner.ClusterManagement,
			from: "1.4", to: "1.6", wantRoute: "1.4 1.6", wantKubeTo: "1.33",
			want: []string{"1.6 chart-upgrade 1.31→1.32 roll 1.8.1→1.9.2", "1.6 additional-reconciliation 1.32→1.33 roll 1.9.2→1.9.2"},
		},
		{
			// 1.6's chart maps 1.31 to v1.31.13 where 1.4's maps v1.31.8:
			// the workers roll once, to the new patch.
			name: "a workload cluster of 1.4 on 1.31 keeps 1.31 in 1.6: one pass, one patch rollout", cluster: planner.ClusterWorkload,
			from: "1.4", to: "1.6", kube: "1.31", wantRoute: "1.4 1.6", wantKubeTo: "1.31",
			want: []string{"1.6 chart-upgrade 1.31→1.31 roll 1.8.1→1.9.2"},
		},
		{
			name: "a workload cluster of 1.4 on 1.29 steps to 1.30 on 1.4, then 1.6 takes it at 1.31", cluster: planner.ClusterWorkload,
			from: "1.4", to: "1.6", kube: "1.29", wantRoute: "1.4 1.6", wantKubeTo: "1.31", wantCodes: []string{planner.CodeWindowStep},
			want: []string{"1.4 values-change 1.29→1.30 roll 1.8.1→1.8.1", "1.6 chart-upgrade 1.30→1.31 roll 1.8.1→1.9.2"},
		},
		{
			// 1.4's calico and cert-manager need Kubernetes 1.29: the
			// cluster steps on 1.3 first, then climbs in each chart upgrade.
			name: "a workload cluster of 1.3 on 1.28 steps to 1.29 on 1.3, then to 1.30 with 1.4 and 1.31 with 1.6", cluster: planner.ClusterWorkload,
			from: "1.3", to: "1.6", kube: "1.28", wantRoute: "1.3 1.4 1.6", wantKubeTo: "1.31", wantCodes: []string{planner.CodeWindowStep},
			want: []string{
				"1.3 values-change 1.28→1.29 roll 1.7.3→1.7.3",
				"1.4 chart-upgrade 1.29→1.30 roll 1.7.3→1.8.1",
				"1.6 chart-upgrade 1.30→1.31 roll 1.8.1→1.9.2",
			},
		},
		{
			name: "a workload cluster of 1.4 on 1.31 asked for 1.33 steps twice in 1.6", cluster: planner.ClusterWorkload,
			from: "1.4", to: "1.6", kube: "1.31", kubeTo: "1.33", wantRoute: "1.4 1.6", wantKubeTo: "1.33",
			want: []string{"1.6 chart-upgrade 1.31→1.32 roll 1.8.1→1.9.2", "1.6 additional-reconciliation 1.32→1.33 roll 1.9.2→1.9.2"},
		},
		{
			name: "a workload cluster of 1.4 asked for 1.31 from 1.29 inside 1.4 steps twice on 1.4's chart", cluster: planner.ClusterWorkload,
			from: "1.4", to: "1.4", kube: "1.29", kubeTo: "1.31", wantRoute: "1.4", wantKubeTo: "1.31", wantCodes: []string{planner.CodeMinorStep},
			wantNotCodes: []string{planner.CodeSameRelease},
			want:         []string{"1.4 values-change 1.29→1.30 roll 1.8.1→1.8.1", "1.4 values-change 1.30→1.31 roll 1.8.1→1.8.1"},
		},
		{
			name: "a workload cluster of 1.4 that keeps its minor inside 1.4 has nothing to do", cluster: planner.ClusterWorkload,
			from: "1.4", to: "1.4", kube: "1.30", kubeTo: "1.30", wantRoute: "1.4", wantKubeTo: "1.30", wantCodes: []string{planner.CodeSameRelease},
			wantNotCodes: []string{planner.CodeMinorStep},
		},
		{
			// 1.3 maps 1.30 to v1.30.11, 1.4 to v1.30.12: a patch rollout.
			name: "a workload cluster of 1.3 on 1.30 keeps 1.30 in 1.4, its workers rolling to 1.4's patch", cluster: planner.ClusterWorkload,
			from: "1.3", to: "1.4", kube: "1.30", wantRoute: "1.3 1.4", wantKubeTo: "1.30",
			want: []string{"1.4 chart-upgrade 1.30→1.30 roll 1.7.3→1.8.1"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := planner.Input{Catalog: cat, From: semver.MustParse(tc.from), To: semver.MustParse(tc.to), FromSource: "flag", ToolVersion: "test", Cluster: tc.cluster}
			if tc.kube != "" {
				in.Kubernetes = semver.MustParse(tc.kube)
			}
			if tc.kubeTo != "" {
				in.KubernetesTo = semver.MustParse(tc.kubeTo)
			}
			p, err := planner.Compute(in)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, ps := range p.Passes {
				got = append(got, passLine(ps))
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("passes (-want +got):\n%s", diff)
			}
			if r := strings.Join(p.Route, " "); r != tc.wantRoute {
				t.Errorf("route %s, want %s", r, tc.wantRoute)
			}
			if p.Cluster.KubernetesTo != tc.wantKubeTo || p.To.Kubernetes != tc.wantKubeTo {
				t.Errorf("cluster ends on %s (to.kubernetes %s), want %s", p.Cluster.KubernetesTo, p.To.Kubernetes, tc.wantKubeTo)
			}
			if want := string(tc.cluster); string(p.Cluster.Kind) != want {
				t.Errorf("cluster kind %s, want %s", p.Cluster.Kind, want)
			}
			have := map[string]bool{}
			for _, f := range p.Findings {
				have[f.Code] = true
				if f.Severity == planner.SeverityBlocker {
					t.Errorf("blocker %s (%s): %s", f.Code, f.Subject, f.Message)
				}
			}
			for _, c := range tc.wantCodes {
				if !have[c] {
					t.Errorf("no %s finding; codes %v", c, codes(p))
				}
			}
			for _, c := range tc.wantNotCodes {
				if have[c] {
					t.Errorf("a %s finding; want none", c)
				}
			}
			// Every pass moves the control plane at most one minor, on a
			// chart that maps the minor it sets.
			for _, ps := range p.Passes {
				from, to := semver.MustParse(ps.ControlPlane.From), semver.MustParse(ps.ControlPlane.To)
				if n, err := from.MinorsTo(to); err != nil || n > 1 || n < 0 {
					t.Errorf("pass %d moves the control plane %s → %s", ps.Index, ps.ControlPlane.From, ps.ControlPlane.To)
				}
				rel, _ := cat.Release(semver.MustParse(ps.Release))
				if _, ok := rel.KubeVersion(to); !ok {
					t.Errorf("pass %d sets Kubernetes %s on the chart of %s, which does not map it", ps.Index, ps.ControlPlane.To, ps.Release)
				}
				if ps.Values.K8sVersionShort != ps.ControlPlane.To {
					t.Errorf("pass %d sets k8s_version_short %s for a control plane on %s", ps.Index, ps.Values.K8sVersionShort, ps.ControlPlane.To)
				}
			}
		})
	}
}

// Each values step's Next is a command that plans the rest from where the
// step leaves the cluster: the --kubernetes given is replaced, and one
// step alone ends with following it.
func TestAValuesStepsNextPlansFromTheMinorItLeaves(t *testing.T) {
	cat := catalogtest.Default(t)
	for _, tc := range []struct {
		name, from, to, kube, kubeTo, rerun string
		want                                string
	}{
		{
			name: "inside 1.4, rerun given", from: "1.4", to: "1.4", kube: "1.29", kubeTo: "1.31",
			rerun: "sylva-planner plan --from 1.4 --to 1.4 --cluster workload --kubernetes 1.29 --kubernetes-to 1.31",
			want:  "then plan the rest with --kubernetes 1.30: sylva-planner plan --from 1.4 --to 1.4 --cluster workload --kubernetes 1.30 --kubernetes-to 1.31",
		},
		{
			name: "1.4 → 1.6, no rerun", from: "1.4", to: "1.6", kube: "1.29",
			want: "then plan the rest with --kubernetes 1.30: sylva-planner plan --from 1.4 --to 1.6 --cluster workload --kubernetes 1.30",
		},
		{
			name: "one step inside 1.4", from: "1.4", to: "1.4", kube: "1.30", kubeTo: "1.31",
			want: "pass 1 of 1: set k8s_version_short: \"1.31\" in the values of this cluster's sylva-units release (on Sylva 1.4) and let it settle; then check it with: sylva-planner status --to 1.4",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := planner.Input{
				Catalog: cat, From: semver.MustParse(tc.from), To: semver.MustParse(tc.to), FromSource: "flag", ToolVersion: "test",
				Cluster: planner.ClusterWorkload, Kubernetes: semver.MustParse(tc.kube), Rerun: tc.rerun,
			}
			if tc.kubeTo != "" {
				in.KubernetesTo = semver.MustParse(tc.kubeTo)
			}
			p, err := planner.Compute(in)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasSuffix(p.Next, tc.want) {
				t.Errorf("next:\n%s\nwant it to end with:\n%s", p.Next, tc.want)
			}
			if strings.Contains(p.Summary.Line, "nothing to do") {
				t.Errorf("summary %q for a plan of %d passes", p.Summary.Line, len(p.Passes))
			}
		})
	}
}

func TestWorkloadMinorsOutsideTheWindowAreInputErrors(t *testing.T) {
	cat := catalogtest.Default(t)
	for _, tc := range []struct {
		name         string
		cluster      planner.ClusterKind
		kube, kubeTo string
		field        string
	}{
		{name: "a cluster of 1.4 said to run 1.28", cluster: planner.ClusterWorkload, kube: "1.28", field: "--kubernetes"},
		{name: "a target minor below 1.6's window", cluster: planner.ClusterWorkload, kube: "1.31", kubeTo: "1.30", field: "--kubernetes-to"},
		{name: "a target minor for the management cluster", cluster: planner.ClusterManagement, kubeTo: "1.33", field: "--kubernetes-to"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := planner.Input{Catalog: cat, From: semver.MustParse("1.4"), To: semver.MustParse("1.6"), Cluster: tc.cluster}
			if tc.kube != "" {
				in.Kubernetes = semver.MustParse(tc.kube)
			}
			if tc.kubeTo != "" {
				in.KubernetesTo = semver.MustParse(tc.kubeTo)
			}
			_, err := planner.Compute(in)
			var ie *planner.InputError
			if !errors.As(err, &ie) || ie.Field != tc.field {
				t.Fatalf("Compute: %v, want an input error on %s", err, tc.field)
			}
		})
	}
}
