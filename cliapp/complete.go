package cliapp

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"
)

// Flag is the hidden flag urfave/cli answers with completions.
// A completion request is the words typed before the cursor, then the word
// at the cursor (empty when it is a new word), then this flag:
//
//	sylva-planner plan --to 1. --generate-bash-completion
//
// The answer is one candidate a line, then a line ":N" with cobra's
// completion directive (4: do not complete file names instead), the format
// kubectl reads from a plugin's completion command.
const Flag = "--generate-bash-completion"

// PluginBinary is the name kubectl (1.26 and later) runs to
// complete `kubectl sylva-planner …`: kubectl_complete-PLUGIN on the PATH,
// with the words after the plugin's name and the word at the cursor. The
// binary (or a link to it) under that name answers as for Flag.
const PluginBinary = "kubectl_complete-sylva_planner"

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

// Completer answers the completion requests of an application:
// subcommands, flags once a dash is typed, the choices of enumerated
// flags, and what the application adds.
type Completer struct {
	// FlagValues returns the values of the flag named name (its first
	// name), and false for a flag it knows nothing of.
	FlagValues func(name string) ([]string, bool)
	// Args returns the positional arguments cmd (a command without
	// subcommands) takes.
	Args func(cmd *cli.Command) []string
}

// Script is the completion script of shell (bash, zsh, fish).
func Script(shell string) (string, bool) {
	s, ok := map[string]string{"bash": bashCompletion, "zsh": zshCompletion, "fish": fishCompletion}[shell]
	return s, ok
}

// Request reports whether args (args[0] the program) ask for
// completions: the words before the cursor and the word at it.
func Request(args []string) (words []string, cur string, ok bool) {
	if len(args) == 0 {
		return nil, "", false
	}
	rest := args[1:]
	switch {
	case strings.TrimSuffix(filepath.Base(args[0]), ".exe") == PluginBinary:
	case len(rest) > 0 && rest[len(rest)-1] == Flag:
		rest = rest[:len(rest)-1]
	default:
		return nil, "", false
	}
	if len(rest) == 0 {
		return nil, "", true
	}
	return rest[:len(rest)-1], rest[len(rest)-1], true
}

// Write writes the answer to a completion request: the
// candidates for cur, one a line, then the directive.
func (c Completer) Write(w io.Writer, app *cli.App, words []string, cur string) {
	cands, directive := c.complete(app, words, cur)
	for _, c := range cands {
		fmt.Fprintln(w, c)
	}
	fmt.Fprintf(w, ":%d\n", directive)
}

// complete returns the candidates for the word cur after words, those
// starting with cur, and the directive: a flag's value after a flag that
// takes one (--to 1.), a flag once a dash is typed (--fr), else the
// subcommands, or the arguments the command takes.
func (c Completer) complete(app *cli.App, words []string, cur string) ([]string, int) {
	cmd, flags := commandAt(app, words)
	if n := len(words); n > 0 && strings.HasPrefix(words[n-1], "-") && !strings.Contains(words[n-1], "=") {
		if f := lookupFlag(flags, strings.TrimLeft(words[n-1], "-")); f != nil && takesValue(f) {
			vals, directive := c.flagValues(f)
			return withPrefix(vals, cur), directive
		}
	}
	if name, partial, ok := strings.Cut(cur, "="); ok && strings.HasPrefix(cur, "--") {
		return c.inlineValues(flags, name, partial)
	}
	if strings.HasPrefix(cur, "-") {
		return withPrefix(visibleFlagNames(flags), cur), directiveNoFileComp
	}
	var args []string
	switch {
	case cmd == nil:
		args = commandNames(app.Commands)
	case len(cmd.Subcommands) > 0:
		args = commandNames(cmd.Subcommands)
	case c.Args != nil:
		args = c.Args(cmd)
	}
	return withPrefix(args, cur), directiveNoFileComp
}

// commandAt is the command words name (nil for none), skipping flags and
// their values, and the flags it takes: the application's and its own.
func commandAt(app *cli.App, words []string) (*cli.Command, []cli.Flag) {
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
		if c := FindCommand(cmds, w); c != nil {
			cmd, cmds = c, c.Subcommands
			flags = append(slices.Clone(app.Flags), c.Flags...)
		}
	}
	return cmd, flags
}

// inlineValues completes the value typed after --name=: each candidate
// starts with partial and is written with its flag.
func (c Completer) inlineValues(flags []cli.Flag, name, partial string) ([]string, int) {
	f := lookupFlag(flags, strings.TrimPrefix(name, "--"))
	if f == nil || !takesValue(f) {
		return nil, directiveNoFileComp
	}
	vals, directive := c.flagValues(f)
	out := withPrefix(vals, partial)
	for i := range out {
		out[i] = name + "=" + out[i]
	}
	return out, directive
}

// visibleFlagNames lists the names and aliases of the flags that are not
// hidden, dashed as typed.
func visibleFlagNames(flags []cli.Flag) []string {
	var names []string
	for _, f := range flags {
		if hidden, ok := f.(interface{ IsVisible() bool }); ok && !hidden.IsVisible() {
			continue
		}
		for _, n := range f.Names() {
			names = append(names, dashed(n))
		}
	}
	return names
}

// flagValues are the values f takes: its choices (a generic flag whose
// value has Choices), the application's values for it (FlagValues), file
// names for a flag that takes a file; nothing else.
func (c Completer) flagValues(f cli.Flag) ([]string, int) {
	if g, ok := f.(*cli.GenericFlag); ok {
		if ch, ok := g.Value.(interface{ Choices() []string }); ok {
			return ch.Choices(), directiveNoFileComp
		}
	}
	if c.FlagValues != nil {
		if vals, ok := c.FlagValues(f.Names()[0]); ok {
			return vals, directiveNoFileComp
		}
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
