package inventorykube

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"gitlab.com/sylva-projects/sylva-planner/inventory"
)

// CollectNodes reads the Nodes (name, labels, kubelet version) and the
// DaemonSets' images of the cluster cfg points at: what verify checks,
// with no more rights than listing them. Any failure is an error.
func CollectNodes(ctx context.Context, cfg *rest.Config, opts Options) (*inventory.Facts, error) {
	cs, err := typedClient(withDefaults(cfg), opts)
	if err != nil {
		return nil, err
	}
	limit := opts.PageSize
	if limit <= 0 {
		limit = defaultPageSize
	}
	f := &inventory.Facts{Source: sourceOf(opts.Context), Inventory: &inventory.Inventory{}}
	page := metav1.ListOptions{Limit: limit}
	_, err = listPaged(ctx, page, cs.CoreV1().Nodes().List, func(l *corev1.NodeList) []corev1.Node { return l.Items }, func(n *corev1.Node) {
		f.Inventory.Objects = append(f.Inventory.Objects, inventory.Object{Kind: "Node", Name: n.Name, Labels: n.Labels, KubeletVersion: n.Status.NodeInfo.KubeletVersion})
	})
	if err != nil {
		return nil, fmt.Errorf("list nodes%s: %w", contextText(opts.Context), err)
	}
	_, err = listPaged(ctx, page, cs.AppsV1().DaemonSets(metav1.NamespaceAll).List, func(l *appsv1.DaemonSetList) []appsv1.DaemonSet { return l.Items }, func(ds *appsv1.DaemonSet) {
		obj := inventory.Object{Kind: "DaemonSet", Namespace: ds.Namespace, Name: ds.Name, Labels: ds.Labels}
		for _, ctr := range ds.Spec.Template.Spec.Containers {
			obj.Images = append(obj.Images, ctr.Image)
		}
		f.Inventory.Objects = append(f.Inventory.Objects, obj)
	})
	if err != nil {
		return nil, fmt.Errorf("list daemonsets%s: %w", contextText(opts.Context), err)
	}
	return f, nil
}
