package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"gitlab.com/sylva-projects/sylva-planner/ci"
)

const formatGitLabCI format = "gitlab-ci"

func ciMatrixCommand() *cli.Command {
	return &cli.Command{
		Name:  "ci-matrix",
		Usage: "list the migration tests CI must run to a branch or release, one per supported source release",
		Description: "For a target branch or release (main, release-1.6, 1.6 or 1.7-pre), lists one migration\n" +
			"scenario per release the target supports upgrading from, each with its initial revision\n" +
			"(release-1.5, release-1.4), the expected number of passes and the sylva-units-status\n" +
			"ConfigMap expected after each pass. With --sylva-core DIR the release branches of that git\n" +
			"checkout say which releases exist (a source without a branch is left out) and main's\n" +
			"sylva_release (or the release after the newest release branch) which release main carries.\n\n" +
			"Example: sylva-planner ci-matrix --target main --sylva-core . > migrations.gitlab-ci.yml",
		ArgsUsage: " ",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "target", Usage: "`BRANCH` or release to test migrations to: main, release-1.6, 1.6, 1.7-pre", Value: "main", EnvVars: []string{"SYLVA_PLANNER_TARGET"}},
			&cli.StringFlag{Name: "sylva-core", Usage: "a sylva-core git checkout `DIR` to read release branches from", EnvVars: []string{"SYLVA_PLANNER_SYLVA_CORE"}, TakesFile: true},
			&cli.StringFlag{Name: "extends", Usage: "the CI job template each generated job extends", Value: ".sylva-upgrade-test"},
			outputFlag(formatGitLabCI, formatJSON, formatMarkdown),
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
	}
	if release.IsZero() {
		// Without a checkout, main carries the newest release of the catalog.
		release = ci.WithPre(cat.Newest())
	}
	m, err := ci.Compute(cat, ci.Target{Branch: branch, Release: release}, opts)
	if err != nil {
		return withCode(exitError, fmt.Errorf("--target %s: %w", c.String("target"), err))
	}
	w := e.stdout
	switch outputOf(c) {
	case formatJSON:
		err = m.WriteJSON(w)
	case formatMarkdown:
		err = m.WriteMarkdown(w)
	default:
		err = m.WriteGitLabCI(w, c.String("extends"))
	}
	if err != nil {
		return withCode(exitError, err)
	}
	return nil
}
