package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"gitlab.com/sylva-projects/sylva-planner/action"
	"gitlab.com/sylva-projects/sylva-planner/cliapp"
)

func ciMatrixCommand() *cli.Command {
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
			"(GitLab refuses an empty child pipeline).\n\n" +
			"Example: sylva-planner ci-matrix --target main --sylva-core . > migrations.gitlab-ci.yml",
		ArgsUsage: " ",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "target", Usage: "`BRANCH` or release to test migrations to: main, release-1.6, 1.6, 1.7-pre", Value: "main", EnvVars: []string{"SYLVA_PLANNER_TARGET"}},
			&cli.StringFlag{Name: "sylva-core", Usage: "a sylva-core git checkout `DIR` to read release branches from", EnvVars: []string{"SYLVA_PLANNER_SYLVA_CORE"}, TakesFile: true},
			&cli.StringFlag{Name: "extends", Usage: "the CI job template each generated job extends, without the CI templates of --sylva-core", Value: ".sylva-upgrade-test"},
			&cli.StringFlag{Name: "infra", Usage: "with --sylva-core: the infrastructure template the jobs extend (.`NAME`) and name: one that starts a deployment pipeline and upgrades (capo, capm3; not capd, which never upgrades)", Value: "capo"},
			&cli.StringFlag{Name: "bootstrap", Usage: "with --sylva-core: the bootstrap provider the jobs name (`NAME`: kadm, rke2, ck8s); the default, kadm, is kubeadm, the bootstrap provider every command plans for by default", Value: "kadm"},
			&cli.StringFlag{Name: "os", Usage: "with --sylva-core: the node OS the jobs name (`NAME`: ubuntu, suse)", Value: "ubuntu"},
			cliapp.OutputFlag(cliapp.FormatGitLabCI, cliapp.FormatJSON, cliapp.FormatYAML, cliapp.FormatMarkdown),
			cliapp.AsOfFlag(),
			catalogFlag(),
		},
		Action: ciMatrixAction,
	}
}

func ciMatrixAction(c *cli.Context) error {
	e := cliapp.EnvOf(c)
	req := action.CIMatrixRequest{
		Target: c.String("target"), SylvaCore: c.String("sylva-core"),
		Extends: c.String("extends"), Infra: c.String("infra"), Bootstrap: c.String("bootstrap"), OS: c.String("os"),
		Given:       map[string]bool{},
		ToolVersion: version,
	}
	for _, name := range []string{"extends", "infra", "bootstrap", "os"} {
		req.Given[name] = c.IsSet(name)
	}
	format, err := jobFlagsFormat(c, req.SylvaCore)
	if err != nil {
		return err
	}
	req.Jobs = format == cliapp.FormatGitLabCI
	if req.AsOf, err = cliapp.AsOfOf(c); err != nil {
		return err
	}
	if req.Catalog, err = loadCatalog(c); err != nil {
		return err
	}
	if req.SylvaCore != "" {
		req.SylvaCorePath = e.Path(req.SylvaCore)
	}
	res, err := req.Run(c.Context)
	if err != nil {
		return err
	}
	for _, w := range res.Warnings {
		fmt.Fprintln(e.Stderr, w)
	}
	m := res.Matrix
	gitlab := func(w io.Writer) error { return m.WriteGitLabCI(w, req.Extends) }
	return cliapp.WriteAs(c, format, cliapp.Writers{cliapp.FormatGitLabCI: gitlab, cliapp.FormatJSON: m.WriteJSON, cliapp.FormatYAML: m.WriteYAML, cliapp.FormatMarkdown: m.WriteMarkdown})
}

// jobFlagsFormat returns the output format, and refuses the flags that
// shape the gitlab-ci jobs (--extends, --infra, --bootstrap, --os) where
// they cannot apply: beside a typed -o json, yaml or markdown, which write
// no job, and --infra, --bootstrap and --os without --sylva-core, whose
// deployment jobs they name (the generic jobs only extend --extends). An
// output format set only in SYLVA_PLANNER_OUTPUT yields to a job flag
// typed: the environment holds defaults.
func jobFlagsFormat(c *cli.Context, sylvaCore string) (cliapp.Format, error) {
	given := func(names ...string) (typed, flags string, n int) {
		var t, f []string
		for _, name := range names {
			if c.IsSet(name) {
				t = append(t, "--"+name+" "+shellQuote(c.String(name)))
				f = append(f, "--"+name)
			}
		}
		return andList(t), andList(f), len(f)
	}
	applies := func(n int) string {
		if n == 1 {
			return "applies"
		}
		return "apply"
	}
	format := cliapp.OutputOf(c)
	if typed, flags, n := given("extends", "infra", "bootstrap", "os"); n > 0 && format != cliapp.FormatGitLabCI {
		if !c.IsSet("output") {
			format = cliapp.FormatGitLabCI
		} else {
			return "", cliapp.FlagError(c, fmt.Errorf("%s only %s to the jobs of -o gitlab-ci, and -o %s writes no job; drop %s, or give -o gitlab-ci", typed, applies(n), format, flags))
		}
	}
	if sylvaCore == "" {
		if typed, flags, n := given("infra", "bootstrap", "os"); n > 0 {
			return "", cliapp.FlagError(c, fmt.Errorf("%s only %s with --sylva-core DIR (the jobs are then named after the checkout's deployment jobs); give --sylva-core, or drop %s (without a checkout each job extends --extends)", typed, applies(n), flags))
		}
	}
	return format, nil
}

// andList joins items as "a, b and c".
func andList(items []string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}
