package main

import (
	"errors"
	"fmt"

	"github.com/urfave/cli/v2"

	"gitlab.com/sylva-projects/sylva-planner/action"
	"gitlab.com/sylva-projects/sylva-planner/cliapp"
	"gitlab.com/sylva-projects/sylva-planner/status/statuskube"
)

func drainCheckCommand() *cli.Command {
	o := &drainOptions{}
	return &cli.Command{
		Name:  "drain-check",
		Usage: "check that nodes can be drained: blocking PodDisruptionBudgets, single replicas, preStop, spread",
		Description: "Every pass that moves Kubernetes rolls nodes, and each node is cordoned and drained. This\n" +
			"command reads PodDisruptionBudgets, workloads, pods and nodes, live (the cluster kubectl would\n" +
			"read: --kubeconfig, else KUBECONFIG, else ~/.kube/config; --context, --as) or from manifests\n" +
			"(--inventory DIR), and reports budgets that allow zero evictions (the drain hangs), overlapping\n" +
			"budgets, production workloads with one replica, missing budgets, preStop hooks and grace\n" +
			"periods, and replicas on a single node or zone, grouped by namespace with the\n" +
			"kubectl command that shows each object. With --kubernetes MINOR it also reports objects whose\n" +
			"API version that minor no longer serves. See docs/drain-check.md.\n\n" +
			"Examples:\n" +
			"  # the cluster of a context, with two patterns of production namespaces\n" +
			"  sylva-planner drain-check --context kind-mgmt --prod-namespaces '*-prod,prod-*'\n\n" +
			"  # offline, from kubectl get -A -o yaml dumps, and the APIs Kubernetes 1.32 no longer serves\n" +
			"  sylva-planner drain-check --inventory cluster-dump --kubernetes 1.32\n\n" +
			"Exit codes:\n" +
			"  0 ready (warnings only)\n" +
			"  1 bad input or a cluster that cannot be read\n" +
			"  2 a blocker, or a required check not assessed (a refused list) without --allow-incomplete",
		ArgsUsage: " ",
		Flags: []cli.Flag{
			cliapp.KubeconfigFlag(),
			&cli.StringFlag{Name: "inventory", Usage: "read manifests from `DIR` instead of a cluster", EnvVars: []string{"SYLVA_PLANNER_INVENTORY"}, TakesFile: true},
			prodNamespacesFlag(&o.prodNamespaces),
			&cli.StringFlag{Name: "kubernetes", Usage: "also report API versions removed at or before Kubernetes `MINOR` (for example 1.32)", Destination: &o.kubernetes},
			&cli.BoolFlag{Name: "allow-incomplete", Usage: "do not fail when a required check was not assessed", Destination: &o.allowIncomplete},
			cliapp.OutputFlag(cliapp.FormatTable, cliapp.FormatJSON, cliapp.FormatYAML),
			cliapp.AsOfFlag(),
		},
		Action: o.run,
	}
}

// drainOptions are the flags of drain-check, bound.
type drainOptions struct {
	prodNamespaces, kubernetes string
	allowIncomplete            bool
}

func (o *drainOptions) run(c *cli.Context) error {
	get, err := cliapp.OneSource(c, []string{"inventory"}, []string{"kubeconfig", "context"}, "give either --inventory or --kubeconfig/--context, not both")
	if err != nil {
		return err
	}
	target, err := action.KubernetesMinor(o.kubernetes)
	if err != nil {
		return err
	}
	// --as-of is refused before the cluster is read.
	in, err := commandInputsOf(c)
	if err != nil {
		return err
	}
	prod, err := parseProdNamespaces(c, o.prodNamespaces)
	if err != nil {
		return err
	}
	req := action.DrainRequest{ProdNamespaces: prod, Kubernetes: target, Kubectl: selectionOf(c).Kubectl()}
	// Live unless --inventory: the kubeconfig rule finds the cluster.
	if err := req.SetSources(action.Sources{Readers: readersOf(cliapp.EnvOf(c)), Inventory: get("inventory"), Kubeconfig: get("kubeconfig"), Context: get("context")}); err != nil {
		return err
	}
	rep, err := req.Run(c.Context)
	if errors.Is(err, statuskube.ErrNoCluster) {
		// drain-check also reads manifests: say so.
		err = fmt.Errorf("%w; or give --inventory DIR to check manifests", err)
	}
	if err != nil {
		return err
	}
	rep.Metadata = in.md
	if err := cliapp.WriteOutput(c, cliapp.DocumentWriters(rep.WriteTable, rep.Document())); err != nil {
		return err
	}
	return outcomeExit(action.DrainOutcome(rep, o.allowIncomplete))
}
