package cliapp

import (
	"cmp"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"
)

// The command line is read as kubectl, flux and helm users expect, which
// urfave/cli v2 does not do by itself: flags may follow positional
// arguments (catalog show 1.6 -o json), a one-letter flag may carry its
// value (-oyaml), `help CMD` is `CMD --help`, and an unknown command is an
// error naming the closest one. NormalizeArgs rewrites the arguments before
// the application parses them; it never changes what a valid command line
// that urfave/cli already reads means.

// UsageError is a command line the application cannot run: what is
// wrong, and the command whose help to read.
type UsageError struct {
	Msg, Hint string
}

func (e *UsageError) Error() string { return e.Msg + "\nrun '" + e.Hint + " --help'" }

// NormalizeArgs returns args (args[0] is the program) with the command path
// first, then every flag with its value, then the positional arguments.
func NormalizeArgs(app *cli.App, args []string) ([]string, error) {
	if len(args) < 2 {
		return args, nil
	}
	rest := args[1:]
	if rest[0] == "help" {
		// `help`, `help plan`, `help values render`.
		rest = append(slices.Clone(rest[1:]), "--help")
	}
	path, cmd, n, err := commandPath(app, rest)
	if err != nil {
		return nil, err
	}
	if cmd == nil || cmd.SkipFlagParsing {
		return append([]string{args[0]}, rest...), nil
	}
	s := newArgSorter(app, cmd)
	s.sort(rest[n:])
	if len(cmd.Subcommands) > 0 && len(s.positional) > 0 && s.positional[0] != "--" {
		return nil, unknownCommand(path, s.positional[0], cmd.Subcommands)
	}
	out := append(append([]string{args[0]}, s.globals...), rest[:n]...)
	out = append(out, s.flags...)
	return append(out, s.positional...), nil
}

// commandPath reads the command names at the start of rest: the path of
// names (the program first), the command they name (nil for none) and
// how many tokens they take. A name that is no command, where one is
// expected, is an error naming the closest.
func commandPath(app *cli.App, rest []string) ([]string, *cli.Command, int, error) {
	path := []string{cmp.Or(app.HelpName, app.Name)}
	var cmd *cli.Command
	cmds := app.Commands
	i := 0
	for ; i < len(rest); i++ {
		tok := rest[i]
		if strings.HasPrefix(tok, "-") {
			break
		}
		next := FindCommand(cmds, tok)
		if next == nil {
			if cmd == nil || len(cmd.Subcommands) > 0 {
				return nil, nil, 0, unknownCommand(path, tok, cmds)
			}
			break
		}
		cmd, cmds = next, next.Subcommands
		path = append(path, next.Name)
	}
	return path, cmd, i, nil
}

// argSorter sorts the tokens after a command into the application's
// flags, the command's flags (each with its value) and the positional
// arguments.
type argSorter struct {
	cmd                        *cli.Command
	valued, global             map[string]bool
	globals, flags, positional []string
}

func newArgSorter(app *cli.App, cmd *cli.Command) *argSorter {
	return &argSorter{cmd: cmd, valued: valueFlags(cmd.Flags), global: valueFlags(app.Flags)}
}

// isGlobal reports whether tok is one of the application's flags
// (--max-input-size) that the command does not declare itself: one given
// after the command moves before it, where urfave/cli reads it.
func (s *argSorter) isGlobal(tok string) bool {
	name, _, _ := strings.Cut(strings.TrimLeft(tok, "-"), "=")
	return strings.HasPrefix(tok, "--") && s.global[name] && !HasFlag(s.cmd.Flags, name)
}

func (s *argSorter) sort(tail []string) {
	for j := 0; j < len(tail); j++ {
		tok := tail[j]
		switch {
		case tok == "--":
			s.positional = append(s.positional, tail[j:]...)
			return
		case tok == "-" || !strings.HasPrefix(tok, "-"):
			s.positional = append(s.positional, tok)
		case s.isGlobal(tok):
			s.globals = append(s.globals, tok)
			if !strings.Contains(tok, "=") && j+1 < len(tail) {
				s.globals = append(s.globals, tail[j+1])
				j++
			}
		case strings.Contains(tok, "="):
			s.flags = append(s.flags, tok)
		default:
			j += s.flag(tok, tail[j+1:])
		}
	}
}

// flag takes the command's flag tok, with its value from after when it
// takes one, and says how many tokens of after it took.
func (s *argSorter) flag(tok string, after []string) int {
	name := strings.TrimLeft(tok, "-")
	if !strings.HasPrefix(tok, "--") && len(name) > 1 && s.valued[name[:1]] && !s.valued[name] && !HasFlag(s.cmd.Flags, name) {
		s.flags = append(s.flags, "-"+name[:1], name[1:]) // -oyaml
		return 0
	}
	s.flags = append(s.flags, tok)
	if s.valued[name] && len(after) > 0 {
		s.flags = append(s.flags, after[0])
		return 1
	}
	return 0
}

// FindCommand is the command of cmds named (or aliased) name, or nil.
func FindCommand(cmds []*cli.Command, name string) *cli.Command {
	for _, c := range cmds {
		if c.HasName(name) {
			return c
		}
	}
	return nil
}

// valueFlags lists the names and aliases of the flags that take a value.
func valueFlags(flags []cli.Flag) map[string]bool {
	out := map[string]bool{}
	for _, f := range flags {
		if v, ok := f.(interface{ TakesValue() bool }); ok && !v.TakesValue() {
			continue
		}
		for _, n := range f.Names() {
			out[n] = true
		}
	}
	return out
}

// HasFlag reports whether flags has one named name (or aliased).
func HasFlag(flags []cli.Flag, name string) bool { return lookupFlag(flags, name) != nil }

func unknownCommand(path []string, name string, cmds []*cli.Command) error {
	where := strings.Join(path, " ")
	msg := fmt.Sprintf("unknown command %q for %q", name, where)
	if s := closest(name, cmds); s != "" {
		msg += fmt.Sprintf("; did you mean %q?", strings.Join(append(path[1:], s), " "))
	}
	return &UsageError{Msg: msg, Hint: where}
}

// closest returns the visible command name nearest to name: one it starts,
// or one within two edits; "" when none is close.
func closest(name string, cmds []*cli.Command) string {
	var names [][]string
	for _, c := range cmds {
		if !c.Hidden {
			names = append(names, c.Names())
		}
	}
	return nearest(name, names)
}

// nearest returns the first name of the entry of names (a name and its
// aliases) nearest to name: one that name starts (of two characters or
// more), or one within two edits; "" when none is close.
func nearest(name string, names [][]string) string {
	best, bestDist := "", 3
	for _, ns := range names {
		for _, n := range ns {
			if strings.HasPrefix(n, name) && len(name) >= 2 {
				return ns[0]
			}
			if d := editDistance(name, n); d < bestDist {
				best, bestDist = ns[0], d
			}
		}
	}
	return best
}

// notDefined finds the flag of the parser's error for a flag the command
// does not declare, once written with two dashes.
var notDefined = regexp.MustCompile(`^flag provided but not defined: --?([A-Za-z0-9][A-Za-z0-9-]*)$`)

// didYouMean is "; did you mean --NAME?" for the visible flag of flags
// nearest to the undeclared flag of msg, or "" when msg is another error,
// the flag is shorter than three letters or no flag is close.
func didYouMean(msg string, flags []cli.Flag) string {
	m := notDefined.FindStringSubmatch(msg)
	if m == nil || len(m[1]) < 3 {
		// Two edits turn any short flag into another.
		return ""
	}
	var names [][]string
	for _, f := range flags {
		if v, ok := f.(cli.VisibleFlag); ok && !v.IsVisible() {
			continue
		}
		names = append(names, f.Names())
	}
	s := nearest(m[1], names)
	if s == "" || s == m[1] {
		return ""
	}
	return "; did you mean --" + s + "?"
}

// editDistance is the Damerau–Levenshtein distance (adjacent swaps count
// as one edit: plna → plan).
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}

// singleDash finds flags that Go's flag package spells with one dash in its
// errors ("flag provided but not defined: -timeout").
var singleDash = regexp.MustCompile(`(^|[\s:])-([A-Za-z][A-Za-z0-9-]+)`)

// FlagError turns a flag parsing error of c into one line naming the
// flag as it is written on the command line, and the help to read.
func FlagError(c *cli.Context, err error) *UsageError {
	msg := singleDash.ReplaceAllString(err.Error(), "$1--$2")
	hint := cmp.Or(c.App.HelpName, c.App.Name)
	flags := c.App.Flags
	if c.Command != nil && c.Command.Name != "" {
		hint, flags = c.Command.HelpName, c.Command.Flags
	}
	msg += didYouMean(msg, flags)
	return &UsageError{Msg: msg, Hint: hint}
}

// CommandUsageError is an error of a command's action that is a usage
// error of the command run, found where no command is known: a required
// flag missing (action.MissingFlagError). UsageMessage is its one line,
// with command, the command as the user runs it ("sylva-planner values
// generate"), in its example.
type CommandUsageError interface {
	error
	UsageMessage(command string) string
}

// BadRequest is an error of a command's action that refuses the request
// the flags made (flags that do not go together, a value it cannot use):
// shown as FlagError shows a flag the parser refused.
type BadRequest interface {
	error
	BadRequest() bool
}

// CommandUsage has every command of cmds (and subcommand) return a
// CommandUsageError of its action as a UsageError of that command: the
// message names the command run, then the help to read, as FlagError; and
// a BadRequest as FlagError gives it.
func CommandUsage(cmds []*cli.Command) {
	for _, cmd := range cmds {
		CommandUsage(cmd.Subcommands)
		if cmd.Action == nil {
			continue
		}
		action := cmd.Action
		cmd.Action = func(c *cli.Context) error {
			err := action(c)
			var bad BadRequest
			if errors.As(err, &bad) && bad.BadRequest() {
				return envNamed(c, FlagError(c, err))
			}
			var u CommandUsageError
			if !errors.As(err, &u) {
				return envNamed(c, err)
			}
			// HelpName is the program's, as the user runs it (the
			// kubectl plugin's too), and the command's path.
			return &UsageError{Msg: u.UsageMessage(c.Command.HelpName), Hint: c.Command.HelpName}
		}
	}
}

// SetUsageErrors gives every command of cmds that has none the usage
// error handler h (urfave/cli v2 otherwise prints the whole help to
// stdout).
func SetUsageErrors(cmds []*cli.Command, h cli.OnUsageErrorFunc) {
	for _, c := range cmds {
		if c.OnUsageError == nil {
			c.OnUsageError = h
		}
		SetUsageErrors(c.Subcommands, h)
	}
}

// NoArgs has every command of cmds (and subcommand) that declares no
// argument (ArgsUsage " ") refuse one before its Action runs: a usage
// error naming the command and the argument. A group's Action runs only
// when no subcommand is named, so the rule holds for a group too.
func NoArgs(cmds []*cli.Command) {
	for _, cmd := range cmds {
		NoArgs(cmd.Subcommands)
		if cmd.ArgsUsage != " " || cmd.Action == nil {
			continue
		}
		action := cmd.Action
		cmd.Action = func(c *cli.Context) error {
			if c.Args().Len() > 0 {
				// HelpName is the program's (as the root app names it)
				// and the command's path.
				var root *cli.App
				for _, l := range c.Lineage() {
					if l.App != nil {
						root = l.App
					}
				}
				name := strings.TrimPrefix(c.Command.HelpName, cmp.Or(root.HelpName, root.Name)+" ")
				return FlagError(c, fmt.Errorf("%s takes no argument, got %q; its inputs are flags", name, c.Args().First()))
			}
			return action(c)
		}
	}
}

var leadingFlag = regexp.MustCompile(`^--([a-z][a-z0-9-]*)\b`)

// envNamed is err with its leading flag ("--to: …") named as the
// environment variable the flag's value came from, when it came from one
// (SYLVA_PLANNER_TO: …): the user typed no such flag. The exit code and
// the errors err wraps are kept.
func envNamed(c *cli.Context, err error) error {
	if err == nil {
		return nil
	}
	// A usage error said as it is (not wrapped in more words) keeps its
	// hint apart; anything else is renamed whole, keeping what it wraps.
	var ue *UsageError
	if errors.As(err, &ue) && err.Error() == ue.Error() {
		if m := leadingFlag.FindStringSubmatch(ue.Msg); m != nil {
			if v, ok := FromEnv(c, m[1]); ok {
				return &UsageError{Msg: v + ue.Msg[len(m[0]):], Hint: ue.Hint}
			}
		}
		return err
	}
	msg := err.Error()
	m := leadingFlag.FindStringSubmatch(msg)
	if m == nil {
		return err
	}
	v, ok := FromEnv(c, m[1])
	if !ok {
		return err
	}
	return &renamedError{msg: v + msg[len(m[0]):], err: err}
}

// renamedError is err said with another first word.
type renamedError struct {
	msg string
	err error
}

func (e *renamedError) Error() string { return e.msg }
func (e *renamedError) Unwrap() error { return e.err }
