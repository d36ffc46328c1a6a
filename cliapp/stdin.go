package cliapp

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"
)

// OneStdin has every command of cmds (and subcommand) refuse, before it
// runs, two inputs named stdin ("-"): standard input can be read once.
func OneStdin(cmds []*cli.Command, stdin string) {
	for _, cmd := range cmds {
		OneStdin(cmd.Subcommands, stdin)
		AddBefore(cmd, func(c *cli.Context) error {
			if flags := stdinFlags(c, stdin); len(flags) > 1 {
				both := "both"
				if len(flags) > 2 {
					both = "all"
				}
				return fmt.Errorf("%s and %s %s name - (standard input); only one input may be -", strings.Join(flags[:len(flags)-1], ", "), flags[len(flags)-1], both)
			}
			return nil
		})
	}
}

// stdinFlags are the flags of the command that name stdin, once per
// value, in the order of the command's flags.
func stdinFlags(c *cli.Context, stdin string) []string {
	var out []string
	for _, f := range c.Command.Flags {
		name := "--" + f.Names()[0]
		switch f.(type) {
		case *cli.StringFlag:
			if c.String(f.Names()[0]) == stdin {
				out = append(out, name)
			}
		case *cli.StringSliceFlag:
			for _, v := range c.StringSlice(f.Names()[0]) {
				if v == stdin {
					out = append(out, name)
				}
			}
		}
	}
	return out
}
