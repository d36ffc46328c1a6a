package cliapp

import (
	"path/filepath"
	"regexp"
	"strings"

	"github.com/urfave/cli/v2"
)

// kubectl runs `kubectl sylva-planner` as the binary kubectl-sylva_planner
// found on PATH (a dash in a plugin's name is an underscore in its file
// name).
const (
	PluginName    = "kubectl-sylva_planner"
	PluginCommand = "kubectl sylva-planner"
)

// AsKubectlPlugin makes the help read as the user typed it when argv0 is
// the kubectl plugin binary: usage lines, examples, hints and Next say
// "kubectl sylva-planner …". Any other name leaves app as it is.
func AsKubectlPlugin(app *cli.App, argv0 string) {
	if strings.TrimSuffix(filepath.Base(argv0), ".exe") != PluginName {
		return
	}
	app.HelpName = PluginCommand
	reword := func(s string) string { return AsTyped(app, s) }
	app.Description, app.UsageText = reword(app.Description), reword(app.UsageText)
	var walk func([]*cli.Command)
	walk = func(cmds []*cli.Command) {
		for _, c := range cmds {
			c.Usage, c.Description, c.UsageText = reword(c.Usage), reword(c.Description), reword(c.UsageText)
			walk(c.Subcommands)
		}
	}
	walk(app.Commands)
}

// AsTyped rewrites the commands to type in s ("sylva-planner plan …" in an
// error's example) as the user runs the tool: "kubectl sylva-planner plan
// …" for the kubectl plugin. The tool's name in prose ("sylva-planner
// computes …") stays; s is unchanged outside the plugin.
func AsTyped(app *cli.App, s string) string {
	if app.HelpName != PluginCommand {
		return s
	}
	names := make([]string, 0, len(app.Commands))
	for _, c := range app.Commands {
		names = append(names, regexp.QuoteMeta(c.Name))
	}
	mention := regexp.MustCompile(`(^|[^-\w])` + regexp.QuoteMeta(app.Name) + ` (` + strings.Join(names, "|") + `)\b`)
	// What already reads "kubectl sylva-planner" (a usage error's help
	// command) is kept as it is.
	const kept = "\x00"
	s = strings.ReplaceAll(s, PluginCommand, kept)
	s = mention.ReplaceAllString(s, "${1}"+PluginCommand+" $2")
	return strings.ReplaceAll(s, kept, PluginCommand)
}
