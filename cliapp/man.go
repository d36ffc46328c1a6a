package cliapp

import (
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"gitlab.com/sylva-projects/sylva-planner/fileio"
)

// ManPages returns the man pages of app by file name.
func ManPages(app *cli.App) (map[string]string, error) {
	pages := map[string]string{}
	page, err := app.ToManWithSection(1)
	if err != nil {
		return nil, err
	}
	pages[app.Name+".1"] = page
	var add func(path []string, cmds []*cli.Command) error
	add = func(path []string, cmds []*cli.Command) error {
		for _, cmd := range cmds {
			if cmd.Hidden {
				continue
			}
			p := append(append([]string{}, path...), cmd.Name)
			usage := strings.Join(p, " ")
			if len(cmd.Subcommands) > 0 {
				usage += " command [command options]"
			} else {
				usage += " [command options] " + strings.TrimSpace(cmd.ArgsUsage)
			}
			sub := &cli.App{
				Name: strings.Join(p, "-"), Usage: cmd.Usage, Description: cmd.Description,
				UsageText: strings.TrimSpace(usage), Flags: cmd.Flags, Commands: cmd.Subcommands,
			}
			page, err := sub.ToManWithSection(1)
			if err != nil {
				return fmt.Errorf("man page of %s: %w", usage, err)
			}
			// The command's own flags, not the application's.
			pages[sub.Name+".1"] = strings.Replace(page, ".SH GLOBAL OPTIONS", ".SH OPTIONS", 1)
			if err := add(p, cmd.Subcommands); err != nil {
				return err
			}
		}
		return nil
	}
	if err := add([]string{app.Name}, app.Commands); err != nil {
		return nil, err
	}
	return pages, nil
}

// ManCommand is the hidden command that writes the man pages of the
// application (ManPages: one page for the application and one per command,
// generated from the same flags and help the binary has, so they cannot
// drift from it) into the directory it is given.
func ManCommand() *cli.Command {
	return &cli.Command{
		Name:      "man",
		Usage:     "write the man pages (section 1) of the application and of each command into DIR",
		ArgsUsage: "DIR",
		Hidden:    true,
		Action: func(c *cli.Context) error {
			if c.Args().Len() != 1 {
				return FlagError(c, errors.New("man takes the directory to write the pages into"))
			}
			pages, err := ManPages(c.App)
			if err != nil {
				return err
			}
			e := EnvOf(c)
			arg := c.Args().First()
			dir := e.Path(arg)
			// Every page is checked before any is written: a refused page
			// (a link, a directory in its place) leaves DIR as it was, and
			// the directories made for it are removed again.
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
			fmt.Fprintf(e.Stderr, "wrote %d man pages into %s\n", len(pages), c.Args().First())
			return nil
		},
	}
}
