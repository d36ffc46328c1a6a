package removedapis

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"gitlab.com/sylva-projects/sylva-planner/semver"
)

func TestLookup(t *testing.T) {
	kb, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, apiVersion, kind string
		removed                string
		found                  bool
	}{
		{name: "extensions Ingress is removed in 1.22", apiVersion: "extensions/v1beta1", kind: "Ingress", removed: "1.22", found: true},
		{name: "extensions Deployment is removed in 1.16", apiVersion: "extensions/v1beta1", kind: "Deployment", removed: "1.16", found: true},
		{name: "batch v1beta1 CronJob is removed in 1.25", apiVersion: "batch/v1beta1", kind: "CronJob", removed: "1.25", found: true},
		{name: "policy v1beta1 PodSecurityPolicy is removed in 1.25 from the supplement", apiVersion: "policy/v1beta1", kind: "PodSecurityPolicy", removed: "1.25", found: true},
		{name: "autoscaling v2beta2 is removed in 1.26", apiVersion: "autoscaling/v2beta2", kind: "HorizontalPodAutoscaler", removed: "1.26", found: true},
		{name: "flowcontrol v1beta2 is removed in 1.29", apiVersion: "flowcontrol.apiserver.k8s.io/v1beta2", kind: "FlowSchema", removed: "1.29", found: true},
		{name: "apps v1 Deployment is not removed", apiVersion: "apps/v1", kind: "Deployment"},
		{name: "core v1 Pod is not removed", apiVersion: "v1", kind: "Pod"},
		{name: "a custom resource is unknown", apiVersion: "helm.toolkit.fluxcd.io/v2", kind: "HelmRelease"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, ok := kb.Lookup(tt.apiVersion, tt.kind)
			if ok != tt.found || a.Removed != tt.removed {
				t.Errorf("Lookup(%s, %s) = %q, %v; want %q, %v", tt.apiVersion, tt.kind, a.Removed, ok, tt.removed, tt.found)
			}
		})
	}
	if _, err := semver.Parse(kb.Horizon); err != nil || kb.Horizon < "1.3" {
		t.Errorf("horizon %q", kb.Horizon)
	}
}

func TestCheck(t *testing.T) {
	kb, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	passes := []Target{{Pass: 1, ControlPlane: semver.MustParse("1.24")}, {Pass: 2, ControlPlane: semver.MustParse("1.25")}}
	tests := []struct {
		name   string
		uses   []Use
		want   []string
		beyond bool
	}{
		{
			name: "an API removed at the second pass's target blocks that pass",
			uses: []Use{{APIVersion: "batch/v1beta1", Kind: "CronJob", Namespace: "a", Name: "c", Where: "managedFields"}},
			want: []string{"removed-api pass 2"},
		},
		{
			name: "an API removed before the first target blocks the first pass",
			uses: []Use{{APIVersion: "extensions/v1beta1", Kind: "Ingress", Namespace: "a", Name: "i", Where: "managedFields"}},
			want: []string{"removed-api pass 1"},
		},
		{
			name: "an API removed in the minor after the last target warns",
			uses: []Use{{APIVersion: "autoscaling/v2beta2", Kind: "HorizontalPodAutoscaler", Namespace: "a", Name: "h", Where: "manifest x.yaml"}},
			want: []string{"removed-api-next Kubernetes 1.26"},
		},
		{
			name: "a served API is clean",
			uses: []Use{{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "a", Name: "d"}},
		},
		{
			name: "a removal stated by the metric is used as is",
			uses: []Use{{APIVersion: "example.io/v1beta1", Kind: "widgets", Removed: "1.25", Where: "apiserver_requested_deprecated_apis"}},
			want: []string{"removed-api pass 2"},
		},
		{
			name: "objects of the same API and pass make one finding",
			uses: []Use{{APIVersion: "batch/v1beta1", Kind: "CronJob", Namespace: "a", Name: "c1"}, {APIVersion: "batch/v1beta1", Kind: "CronJob", Namespace: "a", Name: "c2"}},
			want: []string{"removed-api pass 2"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs, beyond := kb.Check(tt.uses, passes)
			var got []string
			for _, f := range fs {
				got = append(got, f.Code+" "+f.Subject)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" || beyond != tt.beyond {
				t.Errorf("Check(%s) (-want +got):\n%s beyond=%v", tt.name, diff, beyond)
			}
		})
	}
	fs, _ := kb.Check([]Use{{APIVersion: "batch/v1beta1", Kind: "CronJob", Namespace: "a", Name: "c1"}, {APIVersion: "batch/v1beta1", Kind: "CronJob", Namespace: "a", Name: "c2"}}, passes)
	if len(fs) != 1 || !strings.Contains(fs[0].Message, "2 objects (a/c1, a/c2)") || !strings.Contains(fs[0].Remediation, "batch/v1 CronJob") {
		t.Errorf("aggregated finding = %+v", fs)
	}
	if _, beyond := kb.Check(nil, []Target{{Pass: 1, ControlPlane: semver.MustParse("1.99")}}); !beyond {
		t.Error("a target above the horizon is not reported")
	}
}

func TestKnowledgeBaseIsSorted(t *testing.T) {
	kb, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.IsSortedFunc(kb.APIs, compareAPI) {
		t.Error("data/removed.json is not sorted by group, version, kind")
	}
}
