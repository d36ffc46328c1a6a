package main

import (
	"github.com/urfave/cli/v2"

	"gitlab.com/sylva-projects/sylva-planner/action"
	"gitlab.com/sylva-projects/sylva-planner/cliapp"
	"gitlab.com/sylva-projects/sylva-planner/status"
)

// severityFailOnFlag is --fail-on of the commands whose findings have a
// severity.
func severityFailOnFlag() *cli.GenericFlag {
	return cliapp.FailOnFlag("lowest finding `SEVERITY` that makes the exit code non-zero: blocker, warning, never", "SYLVA_PLANNER_FAIL_ON",
		action.FailOnBlocker, action.FailOnWarning, action.FailOnNever)
}

// failOnOf is the --fail-on threshold of every command, which maps the
// outcome of its result to the exit code with outcomeExit.
func failOnOf(c *cli.Context) action.FailOn { return cliapp.FailOnOf[action.FailOn](c) }

func catalogFlag() *cli.StringFlag {
	return &cli.StringFlag{
		Name:      "catalog",
		Usage:     "load the release catalog from `FILE` (or a directory of *.yaml; - for standard input; catalog list -o yaml writes one) instead of the embedded one",
		EnvVars:   []string{"SYLVA_PLANNER_CATALOG"},
		TakesFile: true,
	}
}

// helmReleaseFlag is --helmrelease, the name of the sylva-units
// HelmRelease, of the commands that read or drive it.
func helmReleaseFlag() *cli.StringFlag {
	return &cli.StringFlag{Name: "helmrelease", Usage: "`NAME` of the sylva-units HelmRelease", Value: status.DefaultHelmRelease, EnvVars: []string{"SYLVA_PLANNER_HELMRELEASE"}}
}
