package inventorykube_test

import (
	"fmt"
	"slices"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"gitlab.com/sylva-projects/sylva-planner/internal/kubetest"
	"gitlab.com/sylva-projects/sylva-planner/inventory/inventorykube"
)

// TestCollectNodesReadsNodesAndDaemonSetImagesPageByPage creates three
// Nodes with kubelet versions and a DaemonSet, and reads them back with
// pages of one object, as verify does.
func TestCollectNodesReadsNodesAndDaemonSetImagesPageByPage(t *testing.T) {
	cfg := kubetest.Config(t)
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ns := kubetest.Namespace(t, cfg)
	var want []string
	for i := range 3 {
		name := fmt.Sprintf("%s-node-%d", ns, i)
		n, err := cs.CoreV1().Nodes().Create(ctx(t), &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"role": "worker"}}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cs.CoreV1().Nodes().Delete(ctx(t), name, metav1.DeleteOptions{}) })
		n.Status.NodeInfo.KubeletVersion = fmt.Sprintf("v1.3%d.2", i)
		if _, err := cs.CoreV1().Nodes().UpdateStatus(ctx(t), n, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		want = append(want, name+" "+n.Status.NodeInfo.KubeletVersion)
	}
	labels := map[string]string{"app": "longhorn-manager"}
	ds := &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Name: "longhorn-manager", Namespace: ns},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: corev1.PodSpec{
				Containers: []corev1.Container{{Name: "manager", Image: "longhornio/longhorn-manager:v1.9.1"}},
			}},
		},
	}
	if _, err := cs.AppsV1().DaemonSets(ns).Create(ctx(t), ds, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	f, err := inventorykube.CollectNodes(ctx(t), cfg, inventorykube.Options{Context: "kubetest", PageSize: 1})
	if err != nil {
		t.Fatal(err)
	}
	var nodes []string
	var images []string
	for _, o := range f.Inventory.Objects {
		switch {
		case o.Kind == "Node" && o.Labels["role"] == "worker":
			nodes = append(nodes, o.Name+" "+o.KubeletVersion)
		case o.Kind == "DaemonSet" && o.Namespace == ns:
			images = append(images, o.Images...)
		}
	}
	slices.Sort(nodes)
	if !slices.Equal(nodes, want) || !slices.Equal(images, []string{"longhornio/longhorn-manager:v1.9.1"}) || f.Source != "cluster kubetest" {
		t.Errorf("nodes %q, images %q, source %q; want %q, the manager's image, cluster kubetest", nodes, images, f.Source, want)
	}
}
