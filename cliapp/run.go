package cliapp

import (
	"context"
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"gitlab.com/sylva-projects/sylva-planner/fileio"
)

// Conventions has app and every command of it follow the conventions of
// this package: usage errors on one line (FlagError), the connection
// flags beside every --kubeconfig (WithConnectionFlags), OutputEnv checked
// (WithOutputEnv), one input from standard input (OneStdin), no argument
// to a command that declares none (NoArgs), a required flag missing as a
// usage error of the command run (CommandUsage), and the
// global --max-input-size read into the Env before any command runs.
func Conventions(app *cli.App) {
	onUsage := func(c *cli.Context, err error, _ bool) error { return FlagError(c, err) }
	app.OnUsageError = onUsage
	SetUsageErrors(app.Commands, onUsage)
	WithConnectionFlags(app.Commands)
	WithOutputEnv(app.Commands)
	OneStdin(app.Commands, fileio.StdinName)
	NoArgs(app.Commands)
	CommandUsage(app.Commands)
	app.Flags = append(app.Flags, &cli.StringFlag{Name: "max-input-size", Usage: "largest input `SIZE` read from a file (bytes, or with KiB, MiB, GiB)", Value: fileio.FormatSize(fileio.DefaultMaxSize), EnvVars: []string{"SYLVA_PLANNER_MAX_INPUT_SIZE"}})
	before := app.Before
	app.Before = func(c *cli.Context) error {
		n, err := fileio.ParseSize(c.String("max-input-size"))
		if err != nil {
			return fmt.Errorf("--max-input-size: %w", err)
		}
		EnvOf(c).MaxInput = n
		if before != nil {
			return before(c)
		}
		return nil
	}
}

// Run runs app on the command line args in the environment e and returns
// the exit code: a shell completion request is answered by complete; the
// arguments are read as kubectl users write them (NormalizeArgs); an error
// is one line on stderr, "NAME: message", with the code it carries
// (ExitCodeOf); an error after ctx was cancelled (a signal) is
// "interrupted", exit 1; a panic of the command is an internal error, exit
// 1, on one line. Everything written to e.Stderr (the error line, progress,
// warnings) goes through VisibleWriter: a message quoting a value from
// outside cannot drive the terminal.
func Run(ctx context.Context, e *Env, app *cli.App, args []string, complete Completer) (code int) {
	e.Args = args
	stderr := VisibleWriter(e.Stderr).(*visibleWriter)
	e.Stderr, app.ErrWriter = stderr, stderr
	defer stderr.flush()
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(e.Stderr, "%s: internal error: %v\n", app.Name, strings.ReplaceAll(fmt.Sprint(r), "\n", " "))
			code = ExitError
		}
	}()
	if len(args) > 0 {
		AsKubectlPlugin(app, args[0])
	}
	if words, cur, ok := Request(args); ok {
		complete.Write(e.Stdout, app, words, cur)
		return ExitOK
	}
	args, err := NormalizeArgs(app, args)
	if err == nil {
		err = app.RunContext(WithEnv(ctx, e), args)
	}
	switch {
	case err == nil:
		return ExitOK
	case ctx.Err() != nil:
		// A signal cancelled the work: whatever failed after it is the
		// interruption.
		fmt.Fprintf(e.Stderr, "%s: interrupted\n", app.Name)
		return ExitError
	}
	if msg := err.Error(); msg != "" {
		fmt.Fprintf(e.Stderr, "%s: %s\n", app.Name, strings.TrimSpace(AsTyped(app, msg)))
	}
	return ExitCodeOf(err)
}
