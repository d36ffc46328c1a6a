package kube

import (
	"context"
	"fmt"

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
	err = pages(ctx, limit, func(ctx context.Context, o metav1.ListOptions) (string, error) {
		l, err := cs.CoreV1().Nodes().List(ctx, o)
		if err != nil {
			return "", err
		}
		for _, n := range l.Items {
			f.Inventory.Objects = append(f.Inventory.Objects, inventory.Object{Kind: "Node", Name: n.Name, Labels: n.Labels, KubeletVersion: n.Status.NodeInfo.KubeletVersion})
		}
		return l.Continue, nil
	})
	if err != nil {
		return nil, fmt.Errorf("list nodes%s: %w", contextText(opts.Context), err)
	}
	err = pages(ctx, limit, func(ctx context.Context, o metav1.ListOptions) (string, error) {
		l, err := cs.AppsV1().DaemonSets(metav1.NamespaceAll).List(ctx, o)
		if err != nil {
			return "", err
		}
		for _, ds := range l.Items {
			obj := inventory.Object{Kind: "DaemonSet", Namespace: ds.Namespace, Name: ds.Name, Labels: ds.Labels}
			for _, ctr := range ds.Spec.Template.Spec.Containers {
				obj.Images = append(obj.Images, ctr.Image)
			}
			f.Inventory.Objects = append(f.Inventory.Objects, obj)
		}
		return l.Continue, nil
	})
	if err != nil {
		return nil, fmt.Errorf("list daemonsets%s: %w", contextText(opts.Context), err)
	}
	return f, nil
}
