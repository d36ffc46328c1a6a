package main

import (
	"errors"

	"github.com/urfave/cli/v2"

	"gitlab.com/sylva-projects/sylva-planner/action"
	"gitlab.com/sylva-projects/sylva-planner/cliapp"
	"gitlab.com/sylva-projects/sylva-planner/status"
)

// releaseOptions name a sylva-units release and, with --to, the plan to
// place it in: the flags status and reconcile share, bound.
type releaseOptions struct {
	namespace, helmRelease, to string
}

// flags are -n and --helmrelease, bound to o.
func (o *releaseOptions) flags(namespaceUsage string) []cli.Flag {
	return []cli.Flag{bound(cliapp.NamespaceFlag(namespaceUsage, status.DefaultNamespace), &o.namespace), bound(helmReleaseFlag(), &o.helmRelease)}
}

// toFlag is --to, bound to o.
func (o *releaseOptions) toFlag(usage string) *cli.StringFlag {
	return &cli.StringFlag{Name: "to", Usage: usage, EnvVars: []string{"SYLVA_PLANNER_TO"}, Destination: &o.to}
}

func statusCommand() *cli.Command {
	o := &releaseOptions{}
	var allNamespaces bool
	return &cli.Command{
		Name:  "status",
		Usage: "say which Sylva release a cluster runs and whether another reconciliation pass is pending",
		Description: "Reads the sylva-units-status ConfigMap and, from a live cluster, the sylva-units-status\n" +
			"Kustomization and the sylva-units HelmRelease, and says which release is installed, whether\n" +
			"the last release finished, whether another pass is pending and whether it can start now.\n\n" +
			"Live (kubectl's rule: --kubeconfig, else KUBECONFIG, else ~/.kube/config; --context, --as), in\n" +
			"namespace -n (sylva-system for a management cluster, the cluster's namespace in the management\n" +
			"cluster for a workload cluster). Offline, from `kubectl get cm sylva-units-status -o yaml` or,\n" +
			"to include the Flux objects, `kubectl get cm,kustomizations,helmreleases -o yaml`. See\n" +
			"docs/status.md.\n\n" +
			"Examples:\n" +
			"  # the release of a management cluster, read live\n" +
			"  sylva-planner status -n sylva-system\n\n" +
			"  # offline, from the ConfigMap as kubectl prints it (in the namespace of the context)\n" +
			"  kubectl get cm sylva-units-status -o yaml | sylva-planner status -f -\n\n" +
			"  # where the cluster stands in the plan to 1.6, and what the next pass does\n" +
			"  sylva-planner status --to 1.6\n\n" +
			"  # every sylva-units release of the management cluster, one line each\n" +
			"  sylva-planner status -A\n\n" +
			"Exit codes:\n" +
			"  0 read and interpreted, whatever the state (with -A, a namespace whose objects do not decode\n" +
			"    is a row saying so)\n" +
			"  1 bad input: not a ConfigMap or List, not YAML, a malformed value (the message names the\n" +
			"    key); a cluster that cannot be read",
		ArgsUsage: " ",
		Flags: append(append([]cli.Flag{
			&cli.StringFlag{Name: "file", Aliases: []string{"f"}, Usage: "read the ConfigMap (or a List with the Kustomization and HelmRelease) from `FILE` (- for standard input) instead of a cluster", EnvVars: []string{"SYLVA_PLANNER_STATUS_FILE"}, TakesFile: true},
			cliapp.KubeconfigFlag(),
		}, o.flags("release `NAMESPACE` of sylva-units")...),
			o.toFlag("also say where the cluster stands in the plan to `RELEASE` (pass k of n) and what the next pass does"),
			cliapp.AsOfFlag(),
			catalogFlag(),
			cliapp.OutputFlag(cliapp.FormatTable, cliapp.FormatJSON, cliapp.FormatYAML),
			statusAllNamespacesFlag(&allNamespaces),
		),
		Action: func(c *cli.Context) error {
			if allNamespaces {
				return o.runFleet(c)
			}
			return o.runStatus(c)
		},
	}
}

// sources are the sources of status and reconcile: --file, else the
// cluster of --kubeconfig/--context, for the release of -n and
// --helmrelease.
func (o *releaseOptions) sources(c *cli.Context) (action.Sources, error) {
	get, err := cliapp.OneSource(c, []string{"file"}, []string{"kubeconfig", "context"}, "give either --file or --kubeconfig/--context, not both")
	if err != nil {
		return action.Sources{}, err
	}
	s := action.Sources{
		Readers: readersOf(cliapp.EnvOf(c)), File: get("file"), Kubeconfig: get("kubeconfig"), Context: get("context"),
		Namespace: o.namespace, HelmRelease: o.helmRelease,
	}
	switch {
	case s.Namespace == "":
		return s, cliapp.FlagError(c, errors.New("--namespace must not be empty"))
	case s.HelmRelease == "":
		return s, cliapp.FlagError(c, errors.New("--helmrelease must not be empty"))
	}
	return s, nil
}

// runStatus is status of one release.
func (o *releaseOptions) runStatus(c *cli.Context) error {
	s, err := o.sources(c)
	if err != nil {
		return err
	}
	req, err := o.statusRequest(c, s.Status())
	if err != nil {
		return err
	}
	rep, err := req.Run(c.Context)
	if err != nil {
		return err
	}
	return cliapp.WriteOutput(c, cliapp.DocumentWriters(rep.WriteTable, rep.Document()))
}

// statusRequest is the request of status (and the placing in the plan of
// reconcile --to) over src: the catalog, --to, --as-of.
func (o *releaseOptions) statusRequest(c *cli.Context, src action.StatusSource) (action.StatusRequest, error) {
	in, err := commandInputsOf(c)
	return action.StatusRequest{
		Source: src, To: o.to, Selection: selectionOf(c), ToolVersion: version,
		Catalog: in.cat, AsOf: in.asOf, Metadata: in.md,
	}, err
}
