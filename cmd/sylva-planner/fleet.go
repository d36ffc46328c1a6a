package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"gitlab.com/sylva-projects/sylva-planner/action"
	"gitlab.com/sylva-projects/sylva-planner/cliapp"
	"gitlab.com/sylva-projects/sylva-planner/gatemetrics"
)

// This file is the fleet view: status -A and plan -A read every
// sylva-units release of a management cluster (each kind listed once
// across the cluster) and show one line per release.

// allNamespacesFlag is -A/--all-namespaces, spelled as kubectl's, bound
// to dest.
func allNamespacesFlag(dest *bool, usage string) *cli.BoolFlag {
	return &cli.BoolFlag{Name: "all-namespaces", Aliases: []string{"A"}, Usage: usage, Destination: dest}
}

// statusAllNamespacesFlag is status's -A.
func statusAllNamespacesFlag(dest *bool) *cli.BoolFlag {
	return allNamespacesFlag(dest, "list every sylva-units release of the cluster, one line each (namespace, release, chart, pass state, whether a pass may start, what is next), reading each kind once across all namespaces; with --file, from a List of every namespace's objects")
}

// planAllNamespacesFlag is plan's -A.
func planAllNamespacesFlag(dest *bool) *cli.BoolFlag {
	return allNamespacesFlag(dest, "plan every sylva-units release of the cluster to --to (live, or from the List of --status), one line each, those that can start now first; --metrics-file labels the gauges by namespace")
}

// refuseNamespace refuses -n beside -A: one reads a namespace, the other
// all of them.
func refuseNamespace(c *cli.Context) error {
	if cliapp.Typed(c, "namespace") {
		return cliapp.FlagError(c, errors.New("give --all-namespaces or --namespace, not both"))
	}
	return nil
}

// runFleet is status -A.
func (o *releaseOptions) runFleet(c *cli.Context) error {
	if err := refuseNamespace(c); err != nil {
		return err
	}
	s, err := o.sources(c)
	if err != nil {
		return err
	}
	st, err := o.statusRequest(c, nil)
	if err != nil {
		return err
	}
	req := action.FleetStatusRequest{
		Source: s.Fleet(), Selection: st.Selection, Metadata: st.Metadata,
		To: st.To, Catalog: st.Catalog, AsOf: st.AsOf, ToolVersion: version,
	}
	fleet, err := req.Run(c.Context)
	if err != nil {
		return err
	}
	return cliapp.WriteOutput(c, cliapp.DocumentWriters(fleet.WriteTable, fleet.Document()))
}

// runFleet is plan -A: each release found planned as plan --live plans
// one namespace, the cluster's facts read once for all.
func (o *planOptions) runFleet(c *cli.Context) error {
	if err := refuseNamespace(c); err != nil {
		return err
	}
	if out := cliapp.OutputOf(c); out != cliapp.FormatTable && out != cliapp.FormatJSON && out != cliapp.FormatYAML {
		return cliapp.FlagError(c, fmt.Errorf("--output %s does not go with --all-namespaces: give table, json or yaml", out))
	}
	req, err := o.request(c)
	if err != nil {
		return err
	}
	fleet := action.FleetPlanRequest{Plan: req, Rerun: req.Rerun, Selection: req.Selection}
	if err := fleet.Validate(); err != nil {
		return err
	}
	fp, plans, err := fleet.Run(c.Context)
	if err != nil {
		return err
	}
	if err := cliapp.WriteOutput(c, cliapp.DocumentWriters(fp.WriteTable, fp.Document())); err != nil {
		return err
	}
	if err := writeMetrics(c, o.metricsFile, func(w io.Writer) error { return gatemetrics.WriteFleet(w, plans) }); err != nil {
		return err
	}
	return outcomeExit(action.FleetOutcome(fp))
}
