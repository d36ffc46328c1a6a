package kube_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"gitlab.com/sylva-projects/sylva-planner/internal/kubetest"
	"gitlab.com/sylva-projects/sylva-planner/status/kube"
)

// The Cluster API resources the test API server serves (hack/build-testbin.sh).
var (
	kcpResource = schema.GroupVersionResource{Group: "controlplane.cluster.x-k8s.io", Version: "v1beta2", Resource: "kubeadmcontrolplanes"}
	mdResource  = schema.GroupVersionResource{Group: "cluster.x-k8s.io", Version: "v1beta2", Resource: "machinedeployments"}
)

// kubeadmControlPlane is a KubeadmControlPlane asking for version, with
// what its schema requires.
func kubeadmControlPlane(ns, name, version string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": kcpResource.GroupVersion().String(),
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

// machineDeployment is a MachineDeployment of cluster ns asking for
// version, with what its schema requires.
func machineDeployment(ns, name, version string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": mdResource.GroupVersion().String(),
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

// createCAPI creates u; safe to call from several goroutines.
func createCAPI(cfg *rest.Config, u *unstructured.Unstructured) error {
	res := kcpResource
	if u.GetKind() == "MachineDeployment" {
		res = mdResource
	}
	if _, err := dynamic.NewForConfigOrDie(cfg).Resource(res).Namespace(u.GetNamespace()).Create(context.Background(), u, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("create %s %s/%s: %w", u.GetKind(), u.GetNamespace(), u.GetName(), err)
	}
	return nil
}

// grantReadAllButCAPI lets user list the status ConfigMaps and the Flux
// objects in all namespaces, and nothing of Cluster API.
func grantReadAllButCAPI(t *testing.T, cfg *rest.Config, user string) {
	t.Helper()
	ctx := context.Background()
	c := kubernetes.NewForConfigOrDie(cfg)
	name := "read-sylva-units-" + user
	role := &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"list"}},
			{APIGroups: []string{kube.KustomizationResource.Group}, Resources: []string{kube.KustomizationResource.Resource}, Verbs: []string{"list"}},
			{APIGroups: []string{kube.HelmReleaseResource.Group}, Resources: []string{kube.HelmReleaseResource.Resource}, Verbs: []string{"list"}},
		},
	}
	if _, err := c.RbacV1().ClusterRoles().Create(ctx, role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	rb := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: name},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: user}},
	}
	if _, err := c.RbacV1().ClusterRoleBindings().Create(ctx, rb, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = c.RbacV1().ClusterRoleBindings().Delete(ctx, name, metav1.DeleteOptions{})
		_ = c.RbacV1().ClusterRoles().Delete(ctx, name, metav1.DeleteOptions{})
	})
	restricted := kubernetes.NewForConfigOrDie(kubetest.Impersonate(cfg, user))
	deadline := time.Now().Add(10 * time.Second)
	for {
		_, err := restricted.CoreV1().ConfigMaps("").List(ctx, metav1.ListOptions{Limit: 1})
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the grant to %s is not effective: %v", user, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestReadAllClusterAPIRefused: a user who may list the release objects
// but not the Cluster API kinds gets an error naming the kind and the
// right needed, not a fleet without minors.
func TestReadAllClusterAPIRefused(t *testing.T) {
	cfg := kubetest.Config(t)
	grantReadAllButCAPI(t, cfg, "carol")
	r, err := kube.NewReader(kubetest.Impersonate(cfg, "carol"), kube.Options{Context: "carol"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = r.ReadAll(context.Background())
	want := "list kubeadmcontrolplanes.controlplane.cluster.x-k8s.io"
	if err == nil || !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "needs the right to list kubeadmcontrolplanes.controlplane.cluster.x-k8s.io cluster-wide") {
		t.Errorf("ReadAll error = %v, want a forbidden error naming %q and the right needed", err, want)
	}
}
