package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"gitlab.com/sylva-projects/sylva-planner/skew"

	"github.com/urfave/cli/v2"

	"gitlab.com/sylva-projects/sylva-planner/catalog"
)

// completionFlag is the hidden flag urfave/cli answers with completions; the
// shell scripts of `completion` call the binary with it last.
const completionFlag = "--generate-bash-completion"

// The shell scripts ask the binary itself, so they complete what the
// installed version knows: commands, flags, formats and catalog releases.
const (
	bashCompletion = `# bash completion for sylva-planner: source <(sylva-planner completion bash)
_sylva_planner_complete() {
  local words=("${COMP_WORDS[@]:1:$COMP_CWORD-1}")
  local cur="${COMP_WORDS[COMP_CWORD]}"
  local IFS=$'\n'
  COMPREPLY=($(compgen -W "$("${COMP_WORDS[0]}" "${words[@]}" ${cur:+"$cur"} --generate-bash-completion 2>/dev/null)" -- "$cur"))
}
complete -o default -F _sylva_planner_complete sylva-planner kubectl-sylva_planner
`
	zshCompletion = `#compdef sylva-planner kubectl-sylva_planner
# zsh completion for sylva-planner: source <(sylva-planner completion zsh)
_sylva_planner() {
  local -a opts
  local cur=${words[CURRENT]}
  opts=("${(@f)$(${words[1]} ${words[2,CURRENT-1]} ${cur:+$cur} --generate-bash-completion 2>/dev/null)}")
  compadd -- ${opts[@]}
}
compdef _sylva_planner sylva-planner kubectl-sylva_planner
`
)

func completionCommand() *cli.Command {
	return &cli.Command{
		Name:      "completion",
		Usage:     "print a shell completion script: bash, zsh or fish",
		ArgsUsage: "bash|zsh|fish",
		Description: "Completes commands, flags, output formats and catalog releases.\n\n" +
			"   bash: source <(sylva-planner completion bash)\n" +
			"   zsh:  source <(sylva-planner completion zsh)\n" +
			"   fish: sylva-planner completion fish | source",
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return withCode(exitError, &usageErr{msg: "completion takes one shell: bash, zsh or fish", hint: "sylva-planner completion"})
			}
			out := envOf(c).stdout
			switch c.Args().First() {
			case "bash":
				_, err := fmt.Fprint(out, bashCompletion)
				return err
			case "zsh":
				_, err := fmt.Fprint(out, zshCompletion)
				return err
			case "fish":
				s, err := c.App.ToFishCompletion()
				if err != nil {
					return err
				}
				_, err = fmt.Fprint(out, s)
				return err
			default:
				return withCode(exitError, &usageErr{msg: fmt.Sprintf("unknown shell %q (valid: bash, zsh, fish)", c.Args().First()), hint: "sylva-planner completion"})
			}
		},
	}
}

// flagValueCompletion answers a completion request whose last word is a
// flag that takes a value (urfave/cli would read the request as that
// flag's value): the formats of -o, the catalog's releases for --from and
// --to. ok is false for any other request.
func flagValueCompletion(app *cli.App, args []string) (answers []string, ok bool) {
	n := len(args)
	if n < 3 || args[n-1] != completionFlag {
		return nil, false
	}
	var cmd *cli.Command
	for cmds, i := app.Commands, 1; i < n-1; i++ {
		if c := findCommand(cmds, args[i]); c != nil {
			cmd, cmds = c, c.Subcommands
		}
	}
	if cmd == nil {
		return nil, false
	}
	switch name := strings.TrimLeft(args[n-2], "-"); name {
	case "o", "output":
		for _, f := range cmd.Flags {
			if g, isGeneric := f.(*cli.GenericFlag); isGeneric && g.Name == "output" {
				if e, isEnum := g.Value.(*enumValue[format]); isEnum {
					for _, a := range e.allowed {
						answers = append(answers, string(a))
					}
				}
			}
		}
		return answers, answers != nil
	case "from", "to", "workers":
		if !isFlag(cmd.Flags, name) {
			return nil, false
		}
		cat, err := catalog.Default()
		if err != nil {
			return nil, false
		}
		if name != "workers" {
			return cat.ReleaseNames(), true
		}
		// --workers takes a Kubernetes minor: the ones the catalog's
		// releases run.
		var minors []string
		for _, r := range cat.Releases {
			for _, v := range r.Kubernetes.Versions {
				minors = append(minors, v.Minor.Short())
			}
		}
		slices.SortFunc(minors, func(a, b string) int { return skew.MustParse(a).Compare(skew.MustParse(b)) })
		return slices.Compact(minors), true
	}
	return nil, false
}

// completeValues answers a completion request for a command's arguments:
// the catalog's releases for catalog show, the command's flags once a dash
// is typed, its subcommands otherwise.
func completeValues(c *cli.Context) {
	args := c.Args().Slice()
	last := ""
	if n := len(args); n > 0 {
		last = args[n-1]
	}
	out := c.App.Writer
	switch {
	case c.Command.Name == "show" && !strings.HasPrefix(last, "-"):
		if cat, err := catalog.Default(); err == nil {
			fmt.Fprintln(out, strings.Join(cat.ReleaseNames(), "\n"))
		}
	case strings.HasPrefix(last, "-"):
		for _, f := range c.Command.Flags {
			for _, n := range f.Names() {
				if name := dashed(n); strings.HasPrefix(name, last) {
					fmt.Fprintln(out, name)
				}
			}
		}
	default:
		printCommands(out, c.Command.Subcommands)
	}
}

// completeCommands answers a completion request before any command: the
// visible commands. urfave/cli's own answer reads os.Args, not the
// arguments it was given.
func completeCommands(c *cli.Context) { printCommands(c.App.Writer, c.App.Commands) }

func printCommands(out io.Writer, cmds []*cli.Command) {
	for _, cmd := range cmds {
		if !cmd.Hidden && cmd.Name != "help" {
			fmt.Fprintln(out, cmd.Name)
		}
	}
}

func dashed(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// setCompletion gives every command completeValues.
func setCompletion(cmds []*cli.Command) {
	for _, c := range cmds {
		if c.BashComplete == nil {
			c.BashComplete = completeValues
		}
		setCompletion(c.Subcommands)
	}
}
