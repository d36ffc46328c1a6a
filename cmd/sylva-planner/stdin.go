package main

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"gitlab.com/sylva-projects/sylva-planner/fileio"
)

// withOneStdin has every command (and subcommand) refuse, before it runs,
// two inputs named "-": standard input can be read once.
func withOneStdin(cmds []*cli.Command) {
	for _, cmd := range cmds {
		withOneStdin(cmd.Subcommands)
		addBefore(cmd, func(c *cli.Context) error {
			if flags := stdinFlags(c); len(flags) > 1 {
				both := "both"
				if len(flags) > 2 {
					both = "all"
				}
				return withCode(exitError, fmt.Errorf("%s and %s %s name - (standard input); only one input may be -", strings.Join(flags[:len(flags)-1], ", "), flags[len(flags)-1], both))
			}
			return nil
		})
	}
}

// stdinFlags are the flags of the command that name "-", once per value,
// in the order of the command's flags.
func stdinFlags(c *cli.Context) []string {
	var out []string
	for _, f := range c.Command.Flags {
		name := "--" + f.Names()[0]
		switch f.(type) {
		case *cli.StringFlag:
			if c.String(f.Names()[0]) == fileio.StdinName {
				out = append(out, name)
			}
		case *cli.StringSliceFlag:
			for _, v := range c.StringSlice(f.Names()[0]) {
				if v == fileio.StdinName {
					out = append(out, name)
				}
			}
		}
	}
	return out
}
