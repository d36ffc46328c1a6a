package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"gitlab.com/sylva-projects/sylva-planner/catalog"
	"gitlab.com/sylva-projects/sylva-planner/planner"
	"gitlab.com/sylva-projects/sylva-planner/skew"
)

func planCommand() *cli.Command {
	return &cli.Command{
		Name:  "plan",
		Usage: "compute the reconciliation passes that take a cluster from one Sylva release to another",
		Description: "Prints the route, each reconciliation pass of the sylva-units HelmRelease with the helper\n" +
			"values it sets, the control-plane, worker and Longhorn versions per pass, what the\n" +
			"sylva-units-status ConfigMap must say after each pass, the findings and the verdict.\n\n" +
			"Example: sylva-planner plan --from 1.4 --to 1.6 -o json",
		ArgsUsage: " ",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "from", Usage: "Sylva release the cluster runs, for example `1.4`", EnvVars: []string{"SYLVA_PLANNER_FROM"}},
			&cli.StringFlag{Name: "to", Usage: "Sylva release to go to, for example `1.6`", EnvVars: []string{"SYLVA_PLANNER_TO"}},
			&cli.StringFlag{Name: "bootstrap-provider", Usage: "Cluster API bootstrap provider: `kubeadm` or rke2 (selects the full Kubernetes versions)", Value: "kubeadm", EnvVars: []string{"SYLVA_PLANNER_BOOTSTRAP_PROVIDER"}},
			&cli.StringFlag{Name: "workers", Usage: "Kubernetes minor the workers run, when it differs from the management minor of --from (for example `1.30`)"},
			outputFlag(formatTable, formatJSON, formatYAML, formatMarkdown),
			failOnFlag(),
			asOfFlag(),
			catalogFlag(),
		},
		Action: planAction,
	}
}

type planOptions struct {
	from, to, workers string
	provider          string
	output            format
	failOn            failOn
}

func planAction(c *cli.Context) error {
	if c.Args().Len() > 0 {
		return usageError(c, fmt.Errorf("plan takes no argument, got %q (use --from and --to)", c.Args().First()), true)
	}
	opts := planOptions{
		from: c.String("from"), to: c.String("to"), workers: c.String("workers"),
		provider: c.String("bootstrap-provider"), output: outputOf(c), failOn: failOnOf(c),
	}
	asOf, err := asOfOf(c)
	if err != nil {
		return withCode(exitError, err)
	}
	cat, err := loadCatalog(c)
	if err != nil {
		return withCode(exitError, err)
	}
	in, err := planInput(cat, opts)
	if err != nil {
		return withCode(exitError, err)
	}
	in.AsOf = asOf
	p, err := planner.Compute(in)
	if err != nil {
		return withCode(exitError, err)
	}
	if err := writePlan(envOf(c).stdout, p, opts.output); err != nil {
		return withCode(exitError, err)
	}
	return withCode(planExitCode(p, opts.failOn), nil)
}

// planInput turns the flags into a planner.Input, refusing what does not
// parse with the flag's name and the fix.
func planInput(cat *catalog.Catalog, opts planOptions) (planner.Input, error) {
	in := planner.Input{Catalog: cat, ToolVersion: version, FromSource: "flag"}
	var err error
	if opts.from == "" {
		return in, errors.New("--from is required, for example: sylva-planner plan --from 1.4 --to 1.6")
	}
	if opts.to == "" {
		return in, fmt.Errorf("--to is required, for example: sylva-planner plan --from %s --to %s", opts.from, cat.Newest())
	}
	if in.From, err = skew.Parse(opts.from); err != nil {
		return in, fmt.Errorf("--from: %w; give a Sylva release such as 1.4", err)
	}
	if in.To, err = skew.Parse(opts.to); err != nil {
		return in, fmt.Errorf("--to: %w; give a Sylva release such as 1.6", err)
	}
	if opts.workers != "" {
		if in.Workers, err = skew.Parse(opts.workers); err != nil {
			return in, fmt.Errorf("--workers: %w; give a Kubernetes minor such as 1.30", err)
		}
	}
	if in.Provider, err = catalog.ParseProvider(opts.provider); err != nil {
		return in, fmt.Errorf("--bootstrap-provider: %w", err)
	}
	return in, nil
}

func writePlan(w io.Writer, p *planner.Plan, f format) error {
	switch f {
	case formatJSON:
		return p.WriteJSON(w)
	case formatYAML:
		return p.WriteYAML(w)
	case formatMarkdown:
		return p.WriteMarkdown(w)
	case formatTable:
		return p.WriteTable(w)
	}
	return fmt.Errorf("unknown format %q", f)
}

// planExitCode maps a computed plan to the exit code of docs/cli.md.
func planExitCode(p *planner.Plan, threshold failOn) int {
	if threshold == failOnNever {
		return exitOK
	}
	switch p.Verdict {
	case planner.VerdictHeld:
		return exitHeld
	case planner.VerdictBlocked:
		return exitBlocked
	case planner.VerdictUnknown:
		return exitBlocked
	case planner.VerdictReady:
	}
	if threshold == failOnWarning {
		for _, f := range p.Findings {
			if f.Severity.AtLeast(planner.SeverityWarning) {
				return exitBlocked
			}
		}
	}
	return exitOK
}
