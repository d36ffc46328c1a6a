package main

import (
	"github.com/urfave/cli/v2"

	"gitlab.com/sylva-projects/sylva-planner/action"
	"gitlab.com/sylva-projects/sylva-planner/cliapp"
	"gitlab.com/sylva-projects/sylva-planner/status"
)

// verifyOptions are the flags of verify, bound.
type verifyOptions struct {
	req       action.VerifyRequest
	namespace string
}

func verifyCommand() *cli.Command {
	o := &verifyOptions{}
	return &cli.Command{
		Name:  "verify",
		Usage: "check that a cluster reached the final state of a transition's plan",
		Description: "After an upgrade (in CI or by hand), checks the cluster against the plan's final state: the\n" +
			"sylva-units-status ConfigMap says the target release and no pass pending; control-plane nodes\n" +
			"run the target Kubernetes minor; workers are within the kubelet skew and on the minor the plan\n" +
			"leaves them; Longhorn runs the target version. Live (--kubeconfig, --context, -n) or offline\n" +
			"(--status FILE and --inventory DIR with Node and workload manifests). See docs/ci.md.\n\n" +
			"Examples:\n" +
			"  # the cluster of the current context, after the upgrade from 1.4 to 1.6\n" +
			"  sylva-planner verify --from 1.4 --to 1.6 -n sylva-system\n\n" +
			"  # offline, from the status ConfigMap and a dump of the Nodes and workloads\n" +
			"  sylva-planner verify --from 1.4 --to 1.6 --status status.yaml --inventory cluster-dump\n\n" +
			"Exit codes:\n" +
			"  0 every check passed\n" +
			"  1 bad input or a cluster that cannot be read\n" +
			"  2 a check failed",
		ArgsUsage: " ",
		Flags: append(planFlagsFrom(&o.req.Releases, "Sylva release the cluster ran before the transition, for example `1.4`",
			"Kubernetes `MINOR` the workers ran before the transition, when it differed from the management minor of --from"),
			cliapp.KubeconfigFlag(),
			bound(cliapp.NamespaceFlag("release `NAMESPACE` of sylva-units", status.DefaultNamespace), &o.namespace),
			&cli.StringFlag{Name: "status", Usage: "offline: the sylva-units-status ConfigMap `FILE`", TakesFile: true},
			&cli.StringFlag{Name: "inventory", Usage: "offline: a `DIR` of manifests with the Nodes and the Longhorn workloads", TakesFile: true},
			cliapp.OutputFlag(cliapp.FormatTable, cliapp.FormatJSON, cliapp.FormatYAML),
		),
		Action: o.run,
	}
}

func (o *verifyOptions) run(c *cli.Context) error {
	req, err := o.request(c)
	if err != nil {
		return err
	}
	v, err := req.Run(c.Context)
	if err != nil {
		return err
	}
	if err := cliapp.WriteOutput(c, cliapp.DocumentWriters(v.WriteTable, v.Document())); err != nil {
		return err
	}
	return outcomeExit(action.VerifyOutcome(v))
}

// verifyRequest turns the flags into the request of verify: offline the
// status file and the manifests, else the cluster.
func (o *verifyOptions) request(c *cli.Context) (action.VerifyRequest, error) {
	req := o.req
	if err := completeReleases(c, &req.Releases); err != nil {
		return req, err
	}
	get, err := cliapp.OneSource(c, []string{"status", "inventory"}, []string{"kubeconfig", "context"}, "give either --status and --inventory (offline) or --kubeconfig/--context, not both")
	if err != nil {
		return req, err
	}
	return req, req.SetSources(action.Sources{
		Readers: readersOf(cliapp.EnvOf(c)), File: get("status"), Inventory: get("inventory"),
		Kubeconfig: get("kubeconfig"), Context: get("context"), Namespace: o.namespace, HelmRelease: status.DefaultHelmRelease,
	})
}
