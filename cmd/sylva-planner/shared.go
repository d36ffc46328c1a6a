package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"gitlab.com/sylva-projects/sylva-planner/availability"
	"gitlab.com/sylva-projects/sylva-planner/cliapp"
)

// This file holds what the commands that read a cluster share with the
// rest of the command line.

// liveFlags are the flags plan and report add for the drain checks.
func liveFlags() []cli.Flag {
	return []cli.Flag{prodNamespacesFlag()}
}

func prodNamespacesFlag() *cli.StringFlag {
	return &cli.StringFlag{Name: "prod-namespaces", Usage: "comma-separated namespace `GLOBS` of production workloads (they need 2 replicas)", Value: availability.DefaultProdNamespaces, EnvVars: []string{"SYLVA_PLANNER_PROD_NAMESPACES"}}
}

// prodNamespaces are the globs of --prod-namespaces; a malformed one is
// refused, as it would silently match nothing.
func prodNamespaces(c *cli.Context) ([]string, error) {
	out, err := availability.ParseProdNamespaces(c.String("prod-namespaces"))
	if err != nil {
		return nil, cliapp.FlagError(c, fmt.Errorf("%s: %w", cliapp.FlagName(c, "prod-namespaces"), err))
	}
	return out, nil
}
