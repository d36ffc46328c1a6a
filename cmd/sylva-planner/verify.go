package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/urfave/cli/v2"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"gitlab.com/sylva-projects/sylva-planner/action"
	"gitlab.com/sylva-projects/sylva-planner/inventory"
	"gitlab.com/sylva-projects/sylva-planner/status"
)

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
	req, err := verifyRequest(c, e)
	if err != nil {
		return withCode(exitError, err)
	}
	v, err := req.Run(c.Context)
	if err != nil {
		return withCode(exitError, err)
	}
	if err := writeOutput(c, writers{formatTable: v.WriteTable, formatJSON: v.WriteJSON, formatYAML: v.WriteYAML}); err != nil {
		return err
	}
	return outcomeExit(action.VerifyOutcome(v))
}

// verifyRequest turns the flags into the request of verify: offline the
// status file and the manifests, else the cluster.
func verifyRequest(c *cli.Context, e *env) (action.VerifyRequest, error) {
	rel, err := releasesOf(c)
	req := action.VerifyRequest{Releases: rel}
	if err != nil {
		return req, err
	}
	file, dir := c.String("status"), c.String("inventory")
	o := statusOptions{kubeconfig: c.String("kubeconfig"), context: c.String("context"), namespace: c.String("namespace"), helmRelease: status.DefaultHelmRelease}
	if file == "" && dir == "" {
		req.Status, req.Facts = statusSource(e, o), &nodeFacts{e: e, kubeconfig: o.kubeconfig, context: o.context}
		return req, nil
	}
	if file == "" || dir == "" {
		return req, errors.New("offline verification needs both --status FILE and --inventory DIR")
	}
	o.file, o.fileFlag = file, "--status"
	req.Status, req.StatusFile = statusSource(e, o), file
	m, err := manifests(e, "--inventory", dir)
	req.Facts = m
	return req, err
}

// nodeFacts reads the Nodes and the DaemonSets' images of a live cluster:
// what verify checks, with no more rights than listing them.
type nodeFacts struct {
	e                   *env
	kubeconfig, context string
}

func (s *nodeFacts) Facts(ctx context.Context) (*inventory.Facts, error) {
	cfg, ctxName, err := s.e.restConfig(s.kubeconfig, s.context)
	if err != nil {
		return nil, err
	}
	f := &inventory.Facts{Source: "cluster " + ctxName, Inventory: &inventory.Inventory{}}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	nodes, err := listAll(ctx, func(opts metav1.ListOptions) ([]corev1.Node, string, error) {
		l, err := cs.CoreV1().Nodes().List(ctx, opts)
		if err != nil {
			return nil, "", err
		}
		return l.Items, l.Continue, nil
	})
	if err != nil {
		return nil, fmt.Errorf("list nodes (context %s): %w", ctxName, err)
	}
	for _, n := range nodes {
		o := inventory.Object{Kind: "Node", Name: n.Name, Labels: n.Labels, KubeletVersion: n.Status.NodeInfo.KubeletVersion}
		f.Inventory.Objects = append(f.Inventory.Objects, o)
	}
	dss, err := cs.AppsV1().DaemonSets(metav1.NamespaceAll).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("list daemonsets (context %s): %w", ctxName, err)
	}
	for _, ds := range dss.Items {
		o := inventory.Object{Kind: "DaemonSet", Namespace: ds.Namespace, Name: ds.Name, Labels: ds.Labels}
		for _, ctr := range ds.Spec.Template.Spec.Containers {
			o.Images = append(o.Images, ctr.Image)
		}
		f.Inventory.Objects = append(f.Inventory.Objects, o)
	}
	return f, nil
}

func (s *nodeFacts) Input() string { return "cluster live" }

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
