package main

import (
	"strings"

	"github.com/urfave/cli/v2"

	"gitlab.com/sylva-projects/sylva-planner/availability"
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

func prodNamespaces(c *cli.Context) []string {
	var out []string
	for _, g := range strings.Split(c.String("prod-namespaces"), ",") {
		if g = strings.TrimSpace(g); g != "" {
			out = append(out, g)
		}
	}
	return out
}

// statusOptions say where the status is read from.
type statusOptions struct {
	file        string // offline input; empty for a live cluster
	fileFlag    string // the flag that names file: --file (default) or --status
	kubeconfig  string
	context     string
	namespace   string
	helmRelease string
}
