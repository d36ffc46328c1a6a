package main

import (
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"

	"github.com/urfave/cli/v2"

	"gitlab.com/sylva-projects/sylva-planner/cliapp"
	"gitlab.com/sylva-projects/sylva-planner/fileio"
)

// manCommand is the hidden command that writes the man pages of the
// application into the directory it is given: one page for the
// application and one per command (cliapp.HelpManPages), in the layout of
// --help and from the same texts and flags, so that they cannot drift
// from the binary.
func manCommand() *cli.Command {
	return &cli.Command{
		Name:      "man",
		Usage:     "write the man pages (section 1) of the application and of each command into DIR",
		ArgsUsage: "DIR",
		Hidden:    true,
		Description: "Every page is checked before any is written: a page that may not be written (a link or a\n" +
			"directory in its place) leaves DIR as it was. DIR and its parents are made when missing; no\n" +
			"part of its path may be a symbolic link.\n\n" +
			"Examples:\n" +
			"  sylva-planner man bin/man\n" +
			"  man -l bin/man/sylva-planner-plan.1\n\n" +
			"Exit codes:\n" +
			"  0 the pages were written\n" +
			"  1 operational error: no DIR, or a page or DIR that may not be written; nothing is written",
		Action: manAction,
	}
}

func manAction(c *cli.Context) error {
	if c.Args().Len() != 1 {
		return cliapp.FlagError(c, errors.New("man takes the directory to write the pages into"))
	}
	pages := cliapp.HelpManPages(c.App)
	e := cliapp.EnvOf(c)
	arg := c.Args().First()
	dir := e.Path(arg)
	// Every page is checked before any is written: a refused page (a
	// link, a directory in its place) leaves DIR as it was, and the
	// directories made for it are removed again.
	undo, err := fileio.MkdirAll(dir, 0o755)
	if err != nil {
		return fmt.Errorf("man: %w", err)
	}
	names := slices.Sorted(maps.Keys(pages))
	for _, name := range names {
		if err := fileio.CheckOutput(filepath.Join(dir, name)); err != nil {
			undo()
			return fmt.Errorf("man: %w", err)
		}
	}
	for _, name := range names {
		if err := fileio.WriteFile(filepath.Join(dir, name), []byte(pages[name]), 0o644); err != nil {
			return fmt.Errorf("man: %w", err)
		}
	}
	fmt.Fprintf(e.Stderr, "wrote %d man pages into %s\n", len(pages), arg)
	return nil
}
