package cliapp

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"
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
