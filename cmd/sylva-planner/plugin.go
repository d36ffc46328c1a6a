package main

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
	kubectlPluginBinary = "kubectl-sylva_planner"
	kubectlPluginName   = "kubectl sylva-planner"
)

// asKubectlPlugin makes the help read as the user typed it when argv0 is
// the kubectl plugin binary: usage lines, examples, hints and Next say
// "kubectl sylva-planner …". Any other name leaves app as it is.
func asKubectlPlugin(app *cli.App, argv0 string) {
	if strings.TrimSuffix(filepath.Base(argv0), ".exe") != kubectlPluginBinary {
		return
	}
	app.HelpName = kubectlPluginName
	names := make([]string, 0, len(app.Commands))
	for _, c := range app.Commands {
		names = append(names, regexp.QuoteMeta(c.Name))
	}
	// "sylva-planner plan …" in the help is a command to type; the tool's
	// name in prose ("sylva-planner computes …") stays.
	mention := regexp.MustCompile(`\b` + regexp.QuoteMeta(app.Name) + ` (` + strings.Join(names, "|") + `)\b`)
	reword := func(s string) string { return mention.ReplaceAllString(s, kubectlPluginName+" $1") }
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
