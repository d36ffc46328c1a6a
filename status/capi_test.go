package status_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"gitlab.com/sylva-projects/sylva-planner/status"
)

func TestClusterKindOf(t *testing.T) {
	for ns, want := range map[string]status.ClusterKind{
		"sylva-system": status.ClusterManagement,
		"":             status.ClusterManagement,
		"wc1":          status.ClusterWorkload,
		"kube-system":  status.ClusterWorkload,
	} {
		if got := status.ClusterKindOf(ns); got != want {
			t.Errorf("ClusterKindOf(%q) = %s, want %s", ns, got, want)
		}
	}
}

func TestKubernetesMinors(t *testing.T) {
	kcp := func(name, v string) status.CAPIObject {
		return status.CAPIObject{Kind: "KubeadmControlPlane", Namespace: "wl1", Name: name, Version: v}
	}
	md := func(name, v string) status.CAPIObject {
		return status.CAPIObject{Kind: status.KindMachineDeployment, Namespace: "wl1", Name: name, Version: v}
	}
	type want struct {
		cp, workers, source string
		ok                  bool
	}
	tests := []struct {
		name string
		obs  status.Observation
		want want
	}{
		{
			name: "no Cluster API object gives nothing",
			obs:  status.Observation{Namespace: "wl1"},
		},
		{
			name: "the control plane's minor is the workers' when there is no MachineDeployment",
			obs:  status.Observation{ControlPlanes: []status.CAPIObject{kcp("wl1-control-plane", "v1.29.15")}},
			want: want{"1.29", "1.29", "KubeadmControlPlane wl1/wl1-control-plane spec.version v1.29.15", true},
		},
		{
			name: "the workers run the oldest MachineDeployment's minor",
			obs: status.Observation{
				ControlPlanes:      []status.CAPIObject{kcp("wl1-control-plane", "v1.30.4")},
				MachineDeployments: []status.CAPIObject{md("md-b", "v1.30.4"), md("md-a", "v1.29.15"), md("md-c", "v1.29.2")},
			},
			want: want{"1.30", "1.29", "KubeadmControlPlane wl1/wl1-control-plane spec.version v1.30.4; MachineDeployment wl1/md-a spec.template.spec.version v1.29.15", true},
		},
		{
			name: "a name ending in -control-plane is preferred over others in the namespace",
			obs: status.Observation{ControlPlanes: []status.CAPIObject{
				kcp("another", "v1.28.0"),
				{Kind: "RKE2ControlPlane", Namespace: "wl1", Name: "wl1-control-plane", Version: "v1.31.8+rke2r1"},
			}},
			want: want{"1.31", "1.31", "RKE2ControlPlane wl1/wl1-control-plane spec.version v1.31.8+rke2r1", true},
		},
		{
			name: "without a -control-plane name the first by kind and name is taken",
			obs:  status.Observation{ControlPlanes: []status.CAPIObject{kcp("zz", "v1.30.0"), kcp("aa", "v1.29.0")}},
			want: want{"1.29", "1.29", "KubeadmControlPlane wl1/aa spec.version v1.29.0", true},
		},
		{
			name: "a control plane without a version that parses gives no minors",
			obs: status.Observation{
				ControlPlanes:      []status.CAPIObject{kcp("wl1-control-plane", "")},
				MachineDeployments: []status.CAPIObject{md("md0", "v1.29.1")},
			},
		},
		{
			name: "MachineDeployments alone give no control plane minor",
			obs:  status.Observation{MachineDeployments: []status.CAPIObject{md("md0", "v1.29.1")}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got want
			got.cp, got.workers, got.source, got.ok = tc.obs.KubernetesMinors()
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("KubernetesMinors() (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCAPIObjectFromMap(t *testing.T) {
	tests := []struct {
		name string
		obj  map[string]any
		want status.CAPIObject
		ok   bool
	}{
		{
			name: "a KubeadmControlPlane reads spec.version",
			obj:  map[string]any{"apiVersion": "controlplane.cluster.x-k8s.io/v1beta2", "kind": "KubeadmControlPlane", "metadata": map[string]any{"name": "wl1-control-plane", "namespace": "wl1"}, "spec": map[string]any{"version": "v1.29.15"}},
			want: status.CAPIObject{Kind: "KubeadmControlPlane", Namespace: "wl1", Name: "wl1-control-plane", Version: "v1.29.15"},
			ok:   true,
		},
		{
			name: "a MachineDeployment reads spec.template.spec.version",
			obj:  map[string]any{"apiVersion": "cluster.x-k8s.io/v1beta1", "kind": "MachineDeployment", "metadata": map[string]any{"name": "md0", "namespace": "wl1"}, "spec": map[string]any{"template": map[string]any{"spec": map[string]any{"version": "v1.28.9"}}}},
			want: status.CAPIObject{Kind: "MachineDeployment", Namespace: "wl1", Name: "md0", Version: "v1.28.9"},
			ok:   true,
		},
		{
			name: "a control plane kind of another group is no control plane",
			obj:  map[string]any{"apiVersion": "example.com/v1", "kind": "KubeadmControlPlane"},
		},
		{
			name: "a MachineSet is not read",
			obj:  map[string]any{"apiVersion": "cluster.x-k8s.io/v1beta1", "kind": "MachineSet"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := status.CAPIObjectFromMap(tc.obj)
			if ok != tc.ok || got != tc.want {
				t.Errorf("CAPIObjectFromMap = %+v, %v; want %+v, %v", got, ok, tc.want, tc.ok)
			}
		})
	}
}

func TestDecodeFleetReadsClusterAPIObjects(t *testing.T) {
	entries := readFleet(t)
	got := map[string]status.Kubernetes{}
	for _, e := range entries {
		if e.Namespace == "capi-only" {
			t.Errorf("DecodeFleet lists capi-only, which holds Cluster API objects only")
		}
		if k := e.Observation.Kubernetes(); !k.IsZero() {
			got[e.Namespace] = k
		}
	}
	want := map[string]status.Kubernetes{
		"sylva-system": {ControlPlane: "1.31", Workers: "1.31", Source: "KubeadmControlPlane sylva-system/management-cluster-control-plane spec.version v1.31.8; MachineDeployment sylva-system/management-cluster-md0 spec.template.spec.version v1.31.8"},
		"wc1":          {ControlPlane: "1.29", Workers: "1.28", Source: "KubeadmControlPlane wc1/wc1-control-plane spec.version v1.29.15; MachineDeployment wc1/wc1-md0 spec.template.spec.version v1.28.9"},
		"wc2":          {ControlPlane: "1.30", Source: "RKE2ControlPlane wc2/wc2-control-plane spec.version v1.30.4+rke2r1"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Kubernetes of each namespace (-want +got):\n%s", diff)
	}
}
