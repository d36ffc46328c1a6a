package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/urfave/cli/v2"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"gitlab.com/sylva-projects/sylva-planner/action"
	"gitlab.com/sylva-projects/sylva-planner/ci"
	"gitlab.com/sylva-projects/sylva-planner/inventory"
	"gitlab.com/sylva-projects/sylva-planner/planner"
	"gitlab.com/sylva-projects/sylva-planner/skew"
	"gitlab.com/sylva-projects/sylva-planner/status"
	"gitlab.com/sylva-projects/sylva-planner/status/kube"
)

// controlPlaneLabel marks control-plane nodes (kubeadm and RKE2 both set it).
const controlPlaneLabel = "node-role.kubernetes.io/control-plane"

func verifyCommand() *cli.Command {
	return &cli.Command{
		Name:  "verify",
		Usage: "check that a cluster reached the final state of a transition's plan",
		Description: "After an upgrade (in CI or by hand), checks the cluster against the plan's final state: the\n" +
			"sylva-units-status ConfigMap says the target release and no pass pending; control-plane nodes\n" +
			"run the target Kubernetes minor; workers are within the kubelet skew and on the minor the plan\n" +
			"leaves them; Longhorn runs the target version. Live (--kubeconfig, --context, -n) or offline\n" +
			"(--status FILE and --inventory DIR with Node and workload manifests).\n\n" +
			"Exit codes: 0 every check passed; 2 a check failed; 1 bad input or an unreachable cluster.\n\n" +
			"Example: sylva-planner verify --from 1.4 --to 1.6 -n sylva-system",
		ArgsUsage: " ",
		Flags: append(planFlags(),
			kubeconfigFlag(),
			namespaceFlag("release `NAMESPACE` of sylva-units", status.DefaultNamespace),
			&cli.StringFlag{Name: "status", Usage: "offline: the sylva-units-status ConfigMap `FILE`", TakesFile: true},
			&cli.StringFlag{Name: "inventory", Usage: "offline: a `DIR` of manifests with the Nodes and the Longhorn workloads", TakesFile: true},
			outputFlag(formatTable, formatJSON, formatYAML),
		),
		Action: verifyAction,
	}
}

func verifyAction(c *cli.Context) error {
	if err := noArgs(c); err != nil {
		return err
	}
	e := envOf(c)
	cat, err := loadCatalog(c)
	if err != nil {
		return withCode(exitError, err)
	}
	in, err := planInputOf(c, cat)
	if err != nil {
		return withCode(exitError, err)
	}
	if in.AsOf, err = asOfOf(c); err != nil {
		return withCode(exitError, err)
	}
	p, err := planner.Compute(in)
	if err != nil {
		return withCode(exitError, err)
	}
	rules, err := action.DetectionRules(cat)
	if err != nil {
		return withCode(exitError, err)
	}
	var facts ci.Facts
	if c.String("status") != "" || c.String("inventory") != "" {
		facts, err = offlineFacts(e, c.String("status"), c.String("inventory"), rules)
	} else {
		facts, err = liveFacts(c.Context, e, statusOptions{kubeconfig: c.String("kubeconfig"), context: c.String("context"), namespace: c.String("namespace"), helmRelease: status.DefaultHelmRelease}, rules)
	}
	if err != nil {
		return withCode(exitError, err)
	}
	v := ci.Verify(p, facts)
	if err := writeOutput(c, writers{formatTable: v.WriteTable, formatJSON: v.WriteJSON, formatYAML: v.WriteYAML}); err != nil {
		return err
	}
	if !v.OK {
		return withCode(exitBlocked, nil)
	}
	return nil
}

func statusFacts(f *ci.Facts, cm *status.Status) {
	f.StatusFound = cm != nil
	if cm == nil {
		return
	}
	if v, _, ok := cm.Release(); ok {
		f.StatusRelease = v
	}
	f.StatusPending = cm.AdditionalReconciliationRequired != nil && *cm.AdditionalReconciliationRequired
}

func offlineFacts(e *env, statusFile, dir string, rules []inventory.Rule) (ci.Facts, error) {
	f := ci.Facts{Source: "files", Components: map[string]skew.Version{}}
	if statusFile == "" || dir == "" {
		return f, fmt.Errorf("offline verification needs both --status FILE and --inventory DIR")
	}
	data, err := e.readFile("--status", statusFile)
	if err != nil {
		return f, err
	}
	obs, err := status.DecodeObservation(data, status.DefaultHelmRelease)
	if err != nil {
		return f, fmt.Errorf("--status %s: %w", statusFile, err)
	}
	statusFacts(&f, obs.ConfigMap)
	root := e.path(dir)
	if st, err := os.Stat(root); err != nil || !st.IsDir() {
		return f, fmt.Errorf("--inventory %s: not a readable directory", dir)
	}
	inv, err := inventory.Read(e.dirFS(dir))
	if err != nil {
		return f, fmt.Errorf("--inventory %s: %w", dir, err)
	}
	f.Source = fmt.Sprintf("%s and manifests in %s", filepath.ToSlash(statusFile), filepath.ToSlash(dir))
	for _, o := range inv.Objects {
		if o.Kind != "Node" {
			continue
		}
		v, err := skew.Parse(o.KubeletVersion)
		if err != nil {
			return f, fmt.Errorf("--inventory %s: node %s: kubelet version: %w", dir, o.Name, err)
		}
		_, cp := o.Labels[controlPlaneLabel]
		f.Nodes = append(f.Nodes, ci.Node{Name: o.Name, Kubelet: v, ControlPlane: cp})
	}
	for _, d := range inv.Detect(rules) {
		if !d.Version.IsZero() {
			f.Components[d.Component] = d.Version
		}
	}
	return f, nil
}

// liveFacts reads the status, the Nodes and the workloads' images.
func liveFacts(ctx context.Context, e *env, o statusOptions, rules []inventory.Rule) (ci.Facts, error) {
	f := ci.Facts{Components: map[string]skew.Version{}}
	cfg, ctxName, err := e.restConfig(o.kubeconfig, o.context)
	if err != nil {
		return f, err
	}
	f.Source = "cluster " + ctxName
	r, err := kube.NewReader(cfg, kube.Options{HelmRelease: o.helmRelease, Context: ctxName})
	if err != nil {
		return f, err
	}
	obs, err := r.Read(ctx, o.namespace)
	if err == nil && obs.ConfigMap == nil {
		err = checkAPIServer(ctx, cfg, ctxName)
	}
	if err != nil {
		return f, err
	}
	statusFacts(&f, obs.ConfigMap)
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return f, err
	}
	nodes, err := listAll(ctx, func(opts metav1.ListOptions) ([]corev1.Node, string, error) {
		l, err := cs.CoreV1().Nodes().List(ctx, opts)
		if err != nil {
			return nil, "", err
		}
		return l.Items, l.Continue, nil
	})
	if err != nil {
		return f, fmt.Errorf("list nodes (context %s): %w", ctxName, err)
	}
	for _, n := range nodes {
		v, err := skew.Parse(n.Status.NodeInfo.KubeletVersion)
		if err != nil {
			return f, fmt.Errorf("node %s: kubelet version: %w", n.Name, err)
		}
		_, cp := n.Labels[controlPlaneLabel]
		f.Nodes = append(f.Nodes, ci.Node{Name: n.Name, Kubelet: v, ControlPlane: cp})
	}
	inv := &inventory.Inventory{}
	dss, err := cs.AppsV1().DaemonSets(metav1.NamespaceAll).List(ctx, metav1.ListOptions{})
	if err != nil {
		return f, fmt.Errorf("list daemonsets (context %s): %w", ctxName, err)
	}
	for _, ds := range dss.Items {
		o := inventory.Object{Kind: "DaemonSet", Namespace: ds.Namespace, Name: ds.Name, Labels: ds.Labels}
		for _, ctr := range ds.Spec.Template.Spec.Containers {
			o.Images = append(o.Images, ctr.Image)
		}
		inv.Objects = append(inv.Objects, o)
	}
	for _, d := range inv.Detect(rules) {
		if !d.Version.IsZero() {
			f.Components[d.Component] = d.Version
		}
	}
	return f, nil
}

// listAll pages through a list with Limit and Continue.
func listAll[T any](ctx context.Context, page func(metav1.ListOptions) ([]T, string, error)) ([]T, error) {
	var all []T
	opts := metav1.ListOptions{Limit: 500}
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		items, cont, err := page(opts)
		if err != nil {
			return nil, err
		}
		all = append(all, items...)
		if cont == "" {
			return all, nil
		}
		opts.Continue = cont
	}
}
