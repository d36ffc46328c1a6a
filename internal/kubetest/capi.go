package kubetest

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
)

// The Cluster API resources the test API server serves (the cluster-api
// CRDs hack/build-testbin.sh installs).
var (
	KubeadmControlPlanes = schema.GroupVersionResource{Group: "controlplane.cluster.x-k8s.io", Version: "v1beta2", Resource: "kubeadmcontrolplanes"}
	MachineDeployments   = schema.GroupVersionResource{Group: "cluster.x-k8s.io", Version: "v1beta2", Resource: "machinedeployments"}
)

// KubeadmControlPlane is a KubeadmControlPlane in ns asking for version,
// with what its schema requires.
func KubeadmControlPlane(ns, name, version string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": KubeadmControlPlanes.GroupVersion().String(),
		"kind":       "KubeadmControlPlane",
		"metadata":   map[string]any{"name": name, "namespace": ns},
		"spec": map[string]any{
			"version": version,
			"machineTemplate": map[string]any{"spec": map[string]any{
				"infrastructureRef": map[string]any{"apiGroup": "infrastructure.cluster.x-k8s.io", "kind": "DockerMachineTemplate", "name": name},
			}},
		},
	}}
}

// MachineDeployment is a MachineDeployment of the cluster named ns, in
// ns, asking for version, with what its schema requires.
func MachineDeployment(ns, name, version string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": MachineDeployments.GroupVersion().String(),
		"kind":       "MachineDeployment",
		"metadata":   map[string]any{"name": name, "namespace": ns},
		"spec": map[string]any{
			"clusterName": ns,
			"selector":    map[string]any{"matchLabels": map[string]any{"md": name}},
			"template": map[string]any{
				"metadata": map[string]any{"labels": map[string]any{"md": name}},
				"spec": map[string]any{
					"clusterName":       ns,
					"version":           version,
					"bootstrap":         map[string]any{"configRef": map[string]any{"apiGroup": "bootstrap.cluster.x-k8s.io", "kind": "KubeadmConfigTemplate", "name": name}},
					"infrastructureRef": map[string]any{"apiGroup": "infrastructure.cluster.x-k8s.io", "kind": "DockerMachineTemplate", "name": name},
				},
			},
		},
	}}
}

// CreateCAPI creates u, a KubeadmControlPlane or a MachineDeployment;
// safe to call from several goroutines.
func CreateCAPI(cfg *rest.Config, u *unstructured.Unstructured) error {
	res := KubeadmControlPlanes
	if u.GetKind() == "MachineDeployment" {
		res = MachineDeployments
	}
	if _, err := dynamic.NewForConfigOrDie(cfg).Resource(res).Namespace(u.GetNamespace()).Create(context.Background(), u, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("create %s %s/%s: %w", u.GetKind(), u.GetNamespace(), u.GetName(), err)
	}
	return nil
}
