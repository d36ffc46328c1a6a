package main

import (
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"gitlab.com/sylva-projects/sylva-planner/action"
	"gitlab.com/sylva-projects/sylva-planner/cliapp"
)

func ciMatrixCommand() *cli.Command {
	o := &action.CIMatrixRequest{}
	return &cli.Command{
		Name:  "ci-matrix",
		Usage: "list the migration tests CI must run to a branch or release, one per supported source release",
		Description: "For a target branch or release (main, release-1.6, 1.6 or 1.7-pre), lists one migration\n" +
			"scenario per release the target supports upgrading from, each with its initial revision\n" +
			"(release-1.5, release-1.4), the expected number of passes and the sylva-units-status\n" +
			"ConfigMap expected after each pass. With --sylva-core DIR the release branches of that git\n" +
			"checkout say which releases exist (a source without a branch is left out) and main's\n" +
			"sylva_release (or the release after the newest release branch) which release main carries.\n" +
			"The jobs then follow that checkout's own CI: the scenario templates of .gitlab/ci at the\n" +
			"target branch (.scenario_sylva-upgrade-from-1.3.x, with MGMT_INITIAL_REVISION) give each\n" +
			"source its scenario name and initial revision (a branch or a tag such as 1.2.1); a source\n" +
			"without one extends the default upgrade scenario with its release branch. Jobs are named\n" +
			"like the checkout's deployment jobs (\"☁capo 🚀kadm 🎬sylva-upgrade-from-1.3.x 🐧ubuntu\", from\n" +
			"--infra, --bootstrap and --os) and extend the infrastructure template, the scenario template\n" +
			"and .wait-publish-jobs. --extends only applies without the checkout's CI templates, and\n" +
			"--infra, --bootstrap and --os only with them; these four only shape the jobs of -o gitlab-ci\n" +
			"(an output set only in SYLVA_PLANNER_OUTPUT yields to them). A flag given where it cannot\n" +
			"apply is refused, exit 1. A target no source can be tested to gets one job that says why\n" +
			"(GitLab refuses an empty child pipeline). See docs/ci.md.\n\n" +
			"Examples:\n" +
			"  # the child pipeline of migration tests to main, from the checkout's own CI\n" +
			"  sylva-planner ci-matrix --target main --sylva-core . > migrations.gitlab-ci.yml\n\n" +
			"  # the scenarios to 1.6 as a table for people\n" +
			"  sylva-planner ci-matrix --target release-1.6 -o markdown\n\n" +
			"Exit codes:\n" +
			"  0 the matrix was written (an empty one too: a job says why)\n" +
			"  1 bad input: a target that is no branch or release, a checkout git cannot read, a flag given\n" +
			"    where it cannot apply",
		ArgsUsage: " ",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "target", Usage: "`BRANCH` or release to test migrations to: main, release-1.6, 1.6, 1.7-pre", Value: "main", EnvVars: []string{"SYLVA_PLANNER_TARGET"}, Destination: &o.Target},
			&cli.StringFlag{Name: "sylva-core", Usage: "a sylva-core git checkout `DIR` to read release branches from", EnvVars: []string{"SYLVA_PLANNER_SYLVA_CORE"}, TakesFile: true, Destination: &o.SylvaCore},
			&cli.StringFlag{Name: "extends", Usage: "the CI job `TEMPLATE` each generated job extends, without the CI templates of --sylva-core", Value: ".sylva-upgrade-test", Destination: &o.Extends},
			&cli.StringFlag{Name: "infra", Usage: "with --sylva-core: the infrastructure template the jobs extend (.`NAME`) and name: one that starts a deployment pipeline and upgrades (capo, capm3; not capd, which never upgrades)", Value: "capo", Destination: &o.Infra},
			&cli.StringFlag{Name: "bootstrap", Usage: "with --sylva-core: the bootstrap provider the jobs name (`NAME`: kadm, rke2, ck8s); the default, kadm, is kubeadm, the bootstrap provider every command plans for by default", Value: "kadm", Destination: &o.Bootstrap},
			&cli.StringFlag{Name: "os", Usage: "with --sylva-core: the node OS the jobs name (`NAME`: ubuntu, suse)", Value: "ubuntu", Destination: &o.OS},
			cliapp.OutputFlag(cliapp.FormatGitLabCI, cliapp.FormatJSON, cliapp.FormatYAML, cliapp.FormatMarkdown),
			cliapp.AsOfFlag(),
			catalogFlag(),
		},
		Action: func(c *cli.Context) error { return ciMatrixAction(c, *o) },
	}
}

// ciMatrixAction runs req, the request its flags were bound to.
func ciMatrixAction(c *cli.Context, req action.CIMatrixRequest) error {
	e := cliapp.EnvOf(c)
	req.Given, req.ToolVersion = map[string]bool{}, version
	for _, name := range []string{"extends", "infra", "bootstrap", "os"} {
		req.Given[name] = c.IsSet(name)
	}
	req.Output, req.OutputTyped = string(cliapp.OutputOf(c)), c.IsSet("output")
	in, err := commandInputsOf(c)
	if err != nil {
		return err
	}
	req.Catalog, req.AsOf = in.cat, in.asOf
	if req.SylvaCore != "" {
		req.SylvaCorePath = e.Path(req.SylvaCore)
		// As catalog import: the top of a checkout, never a directory git
		// would search the parents of, and one line when it is none.
		if err := checkSylvaCore(c.Context, req.SylvaCore, req.SylvaCorePath); err != nil {
			return err
		}
	}
	res, err := req.Run(c.Context)
	if err != nil {
		return err
	}
	for _, w := range res.Warnings {
		fmt.Fprintf(e.Stderr, "sylva-planner: warning: %s\n", w)
	}
	m := res.Matrix
	gitlab := func(w io.Writer) error { return m.WriteGitLabCI(w, req.Extends) }
	return cliapp.WriteAs(c, cliapp.Format(res.Output), cliapp.DocumentWriters(nil, m.Document()).With(cliapp.FormatGitLabCI, gitlab).With(cliapp.FormatMarkdown, m.WriteMarkdown))
}
