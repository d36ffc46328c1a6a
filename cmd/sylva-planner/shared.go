package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"gitlab.com/sylva-projects/sylva-planner/availability"
	"gitlab.com/sylva-projects/sylva-planner/cliapp"
)

// This file holds what the commands that read a cluster share with the
// rest of the command line.

// prodNamespacesFlag is --prod-namespaces, bound to dest.
func prodNamespacesFlag(dest *string) *cli.StringFlag {
	return &cli.StringFlag{Name: "prod-namespaces", Usage: "comma-separated namespace `GLOBS` of production workloads (they need 2 replicas)", Value: availability.DefaultProdNamespaces, EnvVars: []string{"SYLVA_PLANNER_PROD_NAMESPACES"}, Destination: dest}
}

// parseProdNamespaces are the globs of --prod-namespaces (value); a
// malformed one is refused, as it would silently match nothing.
func parseProdNamespaces(c *cli.Context, value string) ([]string, error) {
	out, err := availability.ParseProdNamespaces(value)
	if err != nil {
		return nil, cliapp.FlagError(c, fmt.Errorf("%s: %w", cliapp.FlagName(c, "prod-namespaces"), err))
	}
	return out, nil
}

// bound is f with its value bound to dest.
func bound(f *cli.StringFlag, dest *string) *cli.StringFlag {
	f.Destination = dest
	return f
}
