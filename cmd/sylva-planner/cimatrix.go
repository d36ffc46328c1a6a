package main

import (
	"fmt"
	"io"
	"io/fs"

	"github.com/urfave/cli/v2"

	"gitlab.com/sylva-projects/sylva-planner/ci"
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
			"and .wait-publish-jobs; --extends only applies without a checkout.\n\n" +
			"Example: sylva-planner ci-matrix --target main --sylva-core . > migrations.gitlab-ci.yml",
		ArgsUsage: " ",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "target", Usage: "`BRANCH` or release to test migrations to: main, release-1.6, 1.6, 1.7-pre", Value: "main", EnvVars: []string{"SYLVA_PLANNER_TARGET"}},
			&cli.StringFlag{Name: "sylva-core", Usage: "a sylva-core git checkout `DIR` to read release branches from", EnvVars: []string{"SYLVA_PLANNER_SYLVA_CORE"}, TakesFile: true},
			&cli.StringFlag{Name: "extends", Usage: "the CI job template each generated job extends, without --sylva-core", Value: ".sylva-upgrade-test"},
			&cli.StringFlag{Name: "infra", Usage: "with --sylva-core: the infrastructure template the jobs extend (.`NAME`) and name", Value: "capo"},
			&cli.StringFlag{Name: "bootstrap", Usage: "with --sylva-core: the bootstrap provider the jobs name (`NAME`: kadm, rke2, ck8s); the default, kadm, is kubeadm, the bootstrap provider every command plans for by default", Value: "kadm"},
			&cli.StringFlag{Name: "os", Usage: "with --sylva-core: the node OS the jobs name (`NAME`: ubuntu, suse)", Value: "ubuntu"},
			outputFlag(formatGitLabCI, formatJSON, formatYAML, formatMarkdown),
			asOfFlag(),
			catalogFlag(),
		},
		Action: ciMatrixAction,
	}
}

func ciMatrixAction(c *cli.Context) error {
	if err := noArgs(c); err != nil {
		return err
	}
	e := envOf(c)
	asOf, err := asOfOf(c)
	if err != nil {
		return withCode(exitError, err)
	}
	cat, err := loadCatalog(c)
	if err != nil {
		return withCode(exitError, err)
	}
	branch, release, err := ci.ParseTarget(c.String("target"))
	if err != nil {
		return withCode(exitError, fmt.Errorf("--target: %w", err))
	}
	opts := ci.Options{ToolVersion: version, AsOf: asOf, Source: "catalog " + cat.Version}
	if dir := c.String("sylva-core"); dir != "" {
		repo, err := ci.ReadRepo(c.Context, e.path(dir))
		if err != nil {
			return withCode(exitError, fmt.Errorf("--sylva-core %s: %w", dir, err))
		}
		opts.Branches = repo.Names()
		opts.Source = "branches of " + dir
		if branch == "main" && release.IsZero() {
			r, how, ok := repo.MainRelease()
			if !ok {
				return withCode(exitError, fmt.Errorf("--sylva-core %s: main says no sylva_release and there is no release branch; give --target 1.X-pre", dir))
			}
			release, opts.Source = r, opts.Source+" ("+how+")"
		}
		if !repo.Has(branch) {
			return withCode(exitError, fmt.Errorf("--target %s: no such branch in %s", branch, dir))
		}
		conv, err := ciConventions(c, ci.Checkout{Dir: e.path(dir)}, branch)
		if err != nil {
			return withCode(exitError, fmt.Errorf("--sylva-core %s: %w", dir, err))
		}
		if conv == nil {
			fmt.Fprintf(e.stderr, "%s has no %s at %s: the jobs extend %s\n", dir, ci.CIDir, branch, c.String("extends"))
		}
		opts.Conventions = conv
	}
	if release.IsZero() {
		// Without a checkout, main carries the newest release of the catalog.
		release = ci.WithPre(cat.Newest())
	}
	m, err := ci.Compute(cat, ci.Target{Branch: branch, Release: release}, opts)
	if err != nil {
		return withCode(exitError, fmt.Errorf("--target %s: %w", c.String("target"), err))
	}
	gitlab := func(w io.Writer) error { return m.WriteGitLabCI(w, c.String("extends")) }
	return writeOutput(c, writers{formatGitLabCI: gitlab, formatJSON: m.WriteJSON, formatYAML: m.WriteYAML, formatMarkdown: m.WriteMarkdown})
}

// ciConventions reads the CI templates of the checkout at branch; nil when
// the branch has no .gitlab/ci.
func ciConventions(c *cli.Context, repo ci.Checkout, branch string) (*ci.Conventions, error) {
	commit, err := repo.Resolve(c.Context, branch)
	if err != nil {
		return nil, err
	}
	fsys := repo.FS(c.Context, commit)
	if _, err := fs.Stat(fsys, ci.CIDir); err != nil {
		return nil, nil //nolint:nilerr // no CI files: the generic jobs
	}
	tpls, err := ci.ReadTemplates(fsys)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", branch, err)
	}
	return &ci.Conventions{Templates: tpls, Infra: c.String("infra"), Bootstrap: c.String("bootstrap"), OS: c.String("os")}, nil
}
