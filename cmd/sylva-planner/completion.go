package main

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"gitlab.com/sylva-projects/sylva-planner/catalog"
	"gitlab.com/sylva-projects/sylva-planner/skew"
)

// completionFlag is the hidden flag urfave/cli answers with completions.
// A completion request is the words typed before the cursor, then the word
// at the cursor (empty when it is a new word), then this flag:
//
//	sylva-planner plan --to 1. --generate-bash-completion
//
// The answer is one candidate a line, then a line ":N" with cobra's
// completion directive (4: do not complete file names instead), the format
// kubectl reads from a plugin's completion command.
const completionFlag = "--generate-bash-completion"

// kubectlCompleteBinary is the name kubectl (1.26 and later) runs to
// complete `kubectl sylva-planner …`: kubectl_complete-PLUGIN on the PATH,
// with the words after the plugin's name and the word at the cursor. The
// binary (or a link to it) under that name answers as for completionFlag.
const kubectlCompleteBinary = "kubectl_complete-sylva_planner"

// Completion directives, as cobra numbers them.
const (
	// directiveDefault lets the shell complete file names when no
	// candidate matches.
	directiveDefault = 0
	// directiveNoFileComp: the candidates are all there is.
	directiveNoFileComp = 4
)

// The shell scripts ask the binary itself, so they complete what the
// installed version knows: commands, flags, formats, releases and minors.
const (
	bashCompletion = `# bash completion for sylva-planner: source <(sylva-planner completion bash)
_sylva_planner_complete() {
  local cur="${COMP_WORDS[COMP_CWORD]}" IFS=$'\n' directive
  local -a out
  out=($("${COMP_WORDS[0]}" "${COMP_WORDS[@]:1:COMP_CWORD-1}" "$cur" --generate-bash-completion 2>/dev/null))
  directive=0
  if [[ ${#out[@]} -gt 0 && ${out[${#out[@]}-1]} == :* ]]; then
    directive=${out[${#out[@]}-1]#:}
    unset 'out[${#out[@]}-1]'
  fi
  COMPREPLY=($(compgen -W "${out[*]}" -- "$cur"))
  if [[ ${#COMPREPLY[@]} -eq 0 && $((directive & 4)) -eq 0 ]]; then
    compopt -o filenames 2>/dev/null
    COMPREPLY=($(compgen -f -- "$cur"))
  fi
}
complete -F _sylva_planner_complete sylva-planner kubectl-sylva_planner
`
	zshCompletion = `#compdef sylva-planner kubectl-sylva_planner
# zsh completion for sylva-planner: source <(sylva-planner completion zsh)
_sylva_planner() {
  local -a out
  local cur=${words[CURRENT]} directive=0
  out=("${(@f)$(${words[1]} "${(@)words[2,CURRENT-1]}" "$cur" --generate-bash-completion 2>/dev/null)}")
  if [[ ${out[-1]} == :* ]]; then
    directive=${out[-1]#:}
    out=("${(@)out[1,-2]}")
  fi
  out=(${out:#})
  if (( ${#out} )); then
    compadd -- "${(@)out}"
  elif (( ! (directive & 4) )); then
    _files
  fi
}
compdef _sylva_planner sylva-planner kubectl-sylva_planner
`
	fishCompletion = `# fish completion for sylva-planner: sylva-planner completion fish | source
function __sylva_planner_complete
    set -l words (commandline -opc)
    set -l cur (commandline -ct)
    set -l out ($words[1] $words[2..-1] "$cur" --generate-bash-completion 2>/dev/null)
    set -l directive 0
    if test (count $out) -gt 0; and string match -q -- ':*' $out[-1]
        set directive (string sub -s 2 -- $out[-1])
        set -e out[-1]
    end
    if test (count $out) -gt 0
        printf '%s\n' $out
    else if test (math "bitand($directive, 4)") -eq 0
        __fish_complete_path "$cur"
    end
end
complete -c sylva-planner -f -a '(__sylva_planner_complete)'
complete -c kubectl-sylva_planner -f -a '(__sylva_planner_complete)'
`
)

func completionCommand() *cli.Command {
	return &cli.Command{
		Name:      "completion",
		Usage:     "print a shell completion script: bash, zsh or fish",
		ArgsUsage: "bash|zsh|fish",
		Description: "Completes commands, partial flags and flag values: output formats for -o, the\n" +
			"catalog's Sylva releases for --from and --to, Kubernetes minors for --workers, file names for\n" +
			"the flags that take a file.\n\n" +
			"   bash: source <(sylva-planner completion bash)\n" +
			"   zsh:  source <(sylva-planner completion zsh)\n" +
			"   fish: sylva-planner completion fish | source\n\n" +
			"As `kubectl sylva-planner` (kubectl 1.26 and later), link the binary as\n" +
			"kubectl_complete-sylva_planner on the PATH: kubectl runs it to complete the plugin.",
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return withCode(exitError, &usageErr{msg: "completion takes one shell: bash, zsh or fish", hint: "sylva-planner completion"})
			}
			out := envOf(c).stdout
			switch c.Args().First() {
			case "bash":
				_, err := io.WriteString(out, bashCompletion)
				return err
			case "zsh":
				_, err := io.WriteString(out, zshCompletion)
				return err
			case "fish":
				_, err := io.WriteString(out, fishCompletion)
				return err
			default:
				return withCode(exitError, &usageErr{msg: fmt.Sprintf("unknown shell %q (valid: bash, zsh, fish)", c.Args().First()), hint: "sylva-planner completion"})
			}
		},
	}
}

// completionRequest reports whether args (args[0] the program) ask for
// completions: the words before the cursor and the word at it.
func completionRequest(args []string) (words []string, cur string, ok bool) {
	if len(args) == 0 {
		return nil, "", false
	}
	rest := args[1:]
	switch {
	case strings.TrimSuffix(filepath.Base(args[0]), ".exe") == kubectlCompleteBinary:
	case len(rest) > 0 && rest[len(rest)-1] == completionFlag:
		rest = rest[:len(rest)-1]
	default:
		return nil, "", false
	}
	if len(rest) == 0 {
		return nil, "", true
	}
	return rest[:len(rest)-1], rest[len(rest)-1], true
}

// writeCompletions writes the answer to a completion request: the
// candidates for cur, one a line, then the directive.
func writeCompletions(w io.Writer, app *cli.App, words []string, cur string) {
	cands, directive := complete(app, words, cur)
	for _, c := range cands {
		fmt.Fprintln(w, c)
	}
	fmt.Fprintf(w, ":%d\n", directive)
}

// complete returns the candidates for the word cur after words, those
// starting with cur, and the directive: a flag's value after a flag that
// takes one (--to 1.), a flag once a dash is typed (--fr), else the
// subcommands, or the arguments the command takes.
func complete(app *cli.App, words []string, cur string) ([]string, int) {
	var cmd *cli.Command
	cmds, flags := app.Commands, app.Flags
	for i := 0; i < len(words); i++ {
		w := words[i]
		if w == "--" {
			break
		}
		if strings.HasPrefix(w, "-") && w != "-" {
			name, _, inline := strings.Cut(strings.TrimLeft(w, "-"), "=")
			if f := lookupFlag(flags, name); f != nil && takesValue(f) && !inline {
				i++
			}
			continue
		}
		if c := findCommand(cmds, w); c != nil {
			cmd, cmds = c, c.Subcommands
			flags = append(slices.Clone(app.Flags), c.Flags...)
		}
	}
	if n := len(words); n > 0 && strings.HasPrefix(words[n-1], "-") && !strings.Contains(words[n-1], "=") {
		if f := lookupFlag(flags, strings.TrimLeft(words[n-1], "-")); f != nil && takesValue(f) {
			vals, directive := flagValues(f)
			return withPrefix(vals, cur), directive
		}
	}
	if name, partial, ok := strings.Cut(cur, "="); ok && strings.HasPrefix(cur, "--") {
		if f := lookupFlag(flags, strings.TrimPrefix(name, "--")); f != nil && takesValue(f) {
			vals, directive := flagValues(f)
			out := withPrefix(vals, partial)
			for i := range out {
				out[i] = name + "=" + out[i]
			}
			return out, directive
		}
		return nil, directiveNoFileComp
	}
	if strings.HasPrefix(cur, "-") {
		var names []string
		for _, f := range flags {
			if hidden, ok := f.(interface{ IsVisible() bool }); ok && !hidden.IsVisible() {
				continue
			}
			for _, n := range f.Names() {
				names = append(names, dashed(n))
			}
		}
		return withPrefix(names, cur), directiveNoFileComp
	}
	var args []string
	switch {
	case cmd == nil:
		args = commandNames(app.Commands)
	case len(cmd.Subcommands) > 0:
		args = commandNames(cmd.Subcommands)
	case cmd.Name == "show":
		if cat, err := catalog.Default(); err == nil {
			args = cat.ReleaseNames()
		}
	case cmd.Name == "completion":
		args = []string{"bash", "zsh", "fish"}
	}
	return withPrefix(args, cur), directiveNoFileComp
}

// flagValues are the values f takes: its choices, the catalog's releases
// (--from, --to, --release) or Kubernetes minors (--workers,
// --kubernetes), the bootstrap providers; file names for a flag that
// takes a file; nothing else.
func flagValues(f cli.Flag) ([]string, int) {
	if g, ok := f.(*cli.GenericFlag); ok {
		if c, ok := g.Value.(interface{ choices() []string }); ok {
			return c.choices(), directiveNoFileComp
		}
	}
	switch f.Names()[0] {
	case "from", "to", "release":
		if cat, err := catalog.Default(); err == nil {
			return cat.ReleaseNames(), directiveNoFileComp
		}
	case "workers", "kubernetes":
		return kubernetesMinors(), directiveNoFileComp
	case "bootstrap-provider":
		return []string{"kubeadm", "rke2"}, directiveNoFileComp
	case "bootstrap":
		return []string{"kadm", "rke2", "ck8s"}, directiveNoFileComp
	}
	takesFile := false
	switch f := f.(type) {
	case *cli.StringFlag:
		takesFile = f.TakesFile
	case *cli.StringSliceFlag:
		takesFile = f.TakesFile
	case *cli.PathFlag:
		takesFile = f.TakesFile
	}
	if takesFile {
		return nil, directiveDefault
	}
	return nil, directiveNoFileComp
}

// kubernetesMinors are the Kubernetes minors the catalog's releases run.
func kubernetesMinors() []string {
	cat, err := catalog.Default()
	if err != nil {
		return nil
	}
	var minors []string
	for _, r := range cat.Releases {
		for _, v := range r.Kubernetes.Versions {
			minors = append(minors, v.Minor.Short())
		}
	}
	slices.SortFunc(minors, func(a, b string) int { return skew.MustParse(a).Compare(skew.MustParse(b)) })
	return slices.Compact(minors)
}

func lookupFlag(flags []cli.Flag, name string) cli.Flag {
	for _, f := range flags {
		if slices.Contains(f.Names(), name) {
			return f
		}
	}
	return nil
}

func takesValue(f cli.Flag) bool {
	v, ok := f.(interface{ TakesValue() bool })
	return !ok || v.TakesValue()
}

func withPrefix(words []string, prefix string) []string {
	var out []string
	for _, w := range words {
		if strings.HasPrefix(w, prefix) {
			out = append(out, w)
		}
	}
	return out
}

func commandNames(cmds []*cli.Command) []string {
	var out []string
	for _, c := range cmds {
		if !c.Hidden && c.Name != "help" {
			out = append(out, c.Name)
		}
	}
	return out
}

func dashed(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}
