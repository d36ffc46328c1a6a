package cliapp

import (
	"fmt"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"
)

// Rerun is the command line that computes the same result again:
// the command and every flag given to it (on the command line or from
// the environment), in the order of its flags, values quoted for a POSIX
// shell by quote when they need it, but for the flags skip names (those
// that do not change the result). Global flags are left out.
func Rerun(c *cli.Context, quote func(string) string, skip ...string) string {
	parts := []string{c.App.HelpName, c.Command.FullName()}
	for _, f := range c.Command.Flags {
		name := f.Names()[0]
		if slices.Contains(skip, name) || !c.IsSet(name) {
			continue
		}
		switch f.(type) {
		case *cli.BoolFlag:
			if c.Bool(name) {
				parts = append(parts, "--"+name)
			}
		case *cli.GenericFlag:
			parts = append(parts, "--"+name, quote(fmt.Sprint(c.Generic(name))))
		case *cli.StringSliceFlag:
			for _, v := range c.StringSlice(name) {
				parts = append(parts, "--"+name, quote(v))
			}
		default:
			parts = append(parts, "--"+name, quote(fmt.Sprint(c.Value(name))))
		}
	}
	return strings.Join(parts, " ")
}
