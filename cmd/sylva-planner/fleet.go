package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"gitlab.com/sylva-projects/sylva-planner/action"
	"gitlab.com/sylva-projects/sylva-planner/cliapp"
	"gitlab.com/sylva-projects/sylva-planner/gatemetrics"
	"gitlab.com/sylva-projects/sylva-planner/live"
	"gitlab.com/sylva-projects/sylva-planner/planner"
	"gitlab.com/sylva-projects/sylva-planner/skew"
	"gitlab.com/sylva-projects/sylva-planner/status"
)

// This file is the fleet view: status -A and plan -A read every
// sylva-units release of a management cluster (each kind listed once
// across the cluster) and show one line per release.

// allNamespacesFlag is -A/--all-namespaces, spelled as kubectl's.
func allNamespacesFlag(usage string) *cli.BoolFlag {
	return &cli.BoolFlag{Name: "all-namespaces", Aliases: []string{"A"}, Usage: usage}
}

// statusAllNamespacesFlag is status's -A.
func statusAllNamespacesFlag() *cli.BoolFlag {
	return allNamespacesFlag("list every sylva-units release of the cluster, one line each (namespace, release, chart, pass state, whether a pass may start, what is next), reading each kind once across all namespaces; with --file, from a List of every namespace's objects")
}

// planAllNamespacesFlag is plan's -A.
func planAllNamespacesFlag() *cli.BoolFlag {
	return allNamespacesFlag("plan every sylva-units release of the cluster to --to (live, or from the List of --status), one line each, those that can start now first")
}

func fleetSourceOf(e *cliapp.Env, o statusOptions) action.FleetSource {
	if o.file != "" {
		flag, read := o.fileReader(e)
		return action.FleetFile{Read: read, Flag: flag, Name: o.file, HelmRelease: o.helmRelease}
	}
	return &live.Fleet{Cluster: cluster(e, o.kubeconfig, o.context), HelmRelease: o.helmRelease}
}

// refuseNamespace refuses -n beside -A: one reads a namespace, the other
// all of them.
func refuseNamespace(c *cli.Context) error {
	if cliapp.Typed(c, "namespace") {
		return cliapp.FlagError(c, errors.New("give --all-namespaces or --namespace, not both"))
	}
	return nil
}

// statusFleetAction is status -A.
func statusFleetAction(c *cli.Context) error {
	if err := refuseNamespace(c); err != nil {
		return err
	}
	o, err := statusOptionsOf(c)
	if err != nil {
		return cliapp.FlagError(c, err)
	}
	to := c.String("to")
	var target skew.Version
	if to != "" {
		if target, err = skew.Parse(to); err != nil {
			return fmt.Errorf("--to: %w; give a Sylva release such as 1.6", err)
		}
	}
	cat, md, err := catalogMetadata(c)
	if err != nil {
		return err
	}
	asOf, err := cliapp.AsOfOf(c)
	if err != nil {
		return err
	}
	req := action.FleetStatusRequest{
		Source: fleetSourceOf(cliapp.EnvOf(c), o), Selection: selectionOf(c), Metadata: md,
		To: target, Catalog: cat, AsOf: asOf, ToolVersion: version,
	}
	fleet, err := req.Run(c.Context)
	if err != nil {
		return err
	}
	return cliapp.WriteOutput(c, cliapp.Writers{cliapp.FormatTable: fleet.WriteTable, cliapp.FormatJSON: fleet.WriteJSON, cliapp.FormatYAML: fleet.WriteYAML})
}

// planFleetAction is plan -A: each release found planned as plan --live
// plans one namespace, the cluster's facts read once for all.
func planFleetAction(c *cli.Context) error {
	if err := refuseNamespace(c); err != nil {
		return err
	}
	for _, name := range []string{"from", "workers"} {
		if c.IsSet(name) {
			return cliapp.FlagError(c, fmt.Errorf("--%s does not go with --all-namespaces: each release is planned from its own status", name))
		}
	}
	e := cliapp.EnvOf(c)
	opts := gateOptionsOf(c)
	if opts.output != cliapp.FormatTable && opts.output != cliapp.FormatJSON && opts.output != cliapp.FormatYAML {
		return cliapp.FlagError(c, fmt.Errorf("--output %s does not go with --all-namespaces: give table, json or yaml", opts.output))
	}
	if opts.to == "" {
		return &action.MissingFlagError{Flag: "--to", Example: "--all-namespaces --to 1.6"}
	}
	asOf, cat, err := gateInputs(c, e, opts)
	if err != nil {
		return err
	}
	if _, err := action.Input(cat, opts.to, opts.to, "", opts.provider); err != nil {
		return err
	}
	// The status of every namespace comes from the fleet; the rest of the
	// request (inventory, suppressions, baseline) is read once.
	base := opts
	base.statusFile, base.live.kubeconfig, base.live.context = "", "", ""
	req, err := planRequest(c, e, cat, base)
	if err != nil {
		return err
	}
	src := statusOptions{kubeconfig: opts.live.kubeconfig, context: opts.live.context, helmRelease: status.DefaultHelmRelease}
	if opts.statusFile != "" {
		src.file, src.fileFlag = opts.statusFile, "--status"
	} else {
		// -A reads the cluster: plan --live for every namespace.
		req.Cluster = &live.Facts{Cluster: cluster(e, opts.live.kubeconfig, opts.live.context)}
	}
	req.AsOf = asOf
	req.Gate = planner.GateOptions{FailOn: opts.failOn, AllowIncomplete: opts.allowIncomplete}
	fleet := action.FleetPlanRequest{
		Plan: req, Source: fleetSourceOf(e, src), FromFile: opts.statusFile != "",
		Rerun: rerunCommand(c), Selection: selectionOf(c),
	}
	fp, plans, err := fleet.Run(c.Context)
	if err != nil {
		return err
	}
	if err := cliapp.WriteAs(c, opts.output, cliapp.Writers{cliapp.FormatTable: fp.WriteTable, cliapp.FormatJSON: fp.WriteJSON, cliapp.FormatYAML: fp.WriteYAML}); err != nil {
		return err
	}
	if err := writeMetrics(e, opts.metricsFile, func(w io.Writer) error { return gatemetrics.WriteFleet(w, plans) }); err != nil {
		return err
	}
	return outcomeExit(action.FleetOutcome(fp))
}
