package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/go-logr/logr"
	"github.com/urfave/cli/v2"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"

	"gitlab.com/sylva-projects/sylva-planner/action"
	"gitlab.com/sylva-projects/sylva-planner/cliapp"
	"gitlab.com/sylva-projects/sylva-planner/fileio"
	"gitlab.com/sylva-projects/sylva-planner/status/kube"
)

// Exit codes, the contract of docs/cli.md.
const (
	exitOK       = cliapp.ExitOK
	exitError    = cliapp.ExitError
	exitBlocked  = 2
	exitGateFail = 3
	exitHeld     = 4
)

// Set at build time with -ldflags -X main.version=….
var (
	version = "dev"
	commit  = ""
)

// withCode returns an error that makes run exit with code; a nil err exits
// silently.
func withCode(code int, err error) error { return cliapp.WithCode(code, err) }

// outcomeExit is the exit of every command that computed its result: the
// exit code of the outcome (action.Outcome.ExitCode), silently.
func outcomeExit(o action.Outcome) error { return withCode(o.ExitCode(), nil) }

// restConfig is the one kubeconfig rule of every command (kube.RESTConfig
// over the environment of the command line) with --as, --as-group and the
// request timeout applied.
func restConfig(e *cliapp.Env, kubeconfig, context string) (*rest.Config, string, error) {
	cfg, name, err := kube.RESTConfig(kube.ConfigOptions{Kubeconfig: e.Path(kubeconfig), Context: context, As: e.As, AsGroups: e.AsGroups, Getenv: e.Getenv})
	if err != nil {
		return nil, "", err
	}
	cfg.Timeout = e.RequestTimeout
	return cfg, name, nil
}

// run builds the application and runs it, returning the exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	e := newEnv("", stdout, stderr, getenv)
	e.Stdin = os.Stdin
	return runEnv(ctx, e, args)
}

// newEnv is the environment of a run (cliapp.NewEnv) on this process's
// clock.
func newEnv(dir string, stdout, stderr io.Writer, getenv func(string) string) *cliapp.Env {
	return cliapp.NewEnv(dir, stdout, stderr, getenv, time.Now)
}

// runIn is run with relative paths resolved against dir and no standard
// input.
func runIn(ctx context.Context, dir string, args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	return runEnv(ctx, newEnv(dir, stdout, stderr, getenv), args)
}

// runEnv runs the application in environment e. A panic of the command is
// an operational error (1, one line), never a gate code.
func runEnv(ctx context.Context, e *cliapp.Env, args []string) (code int) {
	stdout, stderr := e.Stdout, e.Stderr
	e.Args = args
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "sylva-planner: internal error: %v\n", strings.ReplaceAll(fmt.Sprint(r), "\n", " "))
			code = exitError
		}
	}()
	// client-go logs through klog straight to the process's stderr; the
	// commands report errors themselves, so klog is silent (the controller
	// routes it to its JSON log).
	klog.SetLogger(logr.Discard())
	app := newApp(stdout, stderr)
	if len(args) > 0 {
		cliapp.AsKubectlPlugin(app, args[0])
	}
	if words, cur, ok := cliapp.Request(args); ok {
		completer.Write(stdout, app, words, cur)
		return exitOK
	}
	args, err := cliapp.NormalizeArgs(app, args)
	if err == nil {
		err = app.RunContext(cliapp.WithEnv(ctx, e), args)
	}
	if err == nil {
		return exitOK
	}
	if ctx.Err() != nil {
		// A signal cancelled the work: whatever failed after it is the
		// interruption.
		fmt.Fprintln(stderr, "sylva-planner: interrupted")
		return exitError
	}
	if msg := err.Error(); msg != "" {
		fmt.Fprintf(stderr, "sylva-planner: %s\n", strings.TrimSpace(cliapp.AsTyped(app, msg)))
	}
	return cliapp.ExitCodeOf(err)
}

func newApp(stdout, stderr io.Writer) *cli.App {
	app := &cli.App{
		Name:  "sylva-planner",
		Usage: "plan and drive Sylva release transitions (for example 1.4 → 1.6 in one go)",
		Description: "sylva-planner computes the reconciliation passes of the sylva-units HelmRelease that take a\n" +
			"cluster from one Sylva release to another: the control plane steps through every Kubernetes\n" +
			"minor, Longhorn through every minor, the workers roll on every pass that changes the Kubernetes\n" +
			"version (once where the catalog says the chart can hold them back).\n\n" +
			"Exit codes: 0 done; 1 operational error (bad input, unreadable file, unreachable cluster);\n" +
			"2 blocked (an actionable blocker, or an unassessed required check); 3 the gate could not\n" +
			"evaluate; 4 held (every blocker waits on upstream or is pinned).\n\n" +
			"Output: -o on each command; every JSON and YAML document carries apiVersion, kind and\n" +
			"metadata (toolVersion, catalogVersion, asOf). An input file given as - is read from standard\n" +
			"input (one per command). See docs/cli.md.",
		Version:              versionString(),
		Writer:               stdout,
		ErrWriter:            stderr,
		ExitErrHandler:       func(*cli.Context, error) {},
		EnableBashCompletion: true,
		HideHelpCommand:      true,
		Commands: []*cli.Command{
			planCommand(),
			reportCommand(),
			catalogCommand(),
			statusCommand(),
			drainCheckCommand(),
			pruneAuditCommand(),
			ciMatrixCommand(),
			verifyCommand(),
			valuesCommand(),
			reconcileCommand(),
			controllerCommand(),
			versionCommand(),
			completionCommand(),
			manCommand(),
		},
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "max-input-size", Usage: "largest input `SIZE` read from a file (bytes, or with KiB, MiB, GiB)", Value: fileio.FormatSize(fileio.DefaultMaxSize), EnvVars: []string{"SYLVA_PLANNER_MAX_INPUT_SIZE"}},
		},
		Before:       setLimits,
		OnUsageError: usageError,
	}
	cliapp.SetUsageErrors(app.Commands, usageError)
	cliapp.WithConnectionFlags(app.Commands)
	cliapp.WithOutputEnv(app.Commands)
	cliapp.OneStdin(app.Commands, fileio.StdinName, func(err error) error { return err })
	return app
}

// setLimits reads the global limits into the environment of the commands.
func setLimits(c *cli.Context) error {
	n, err := fileio.ParseSize(c.String("max-input-size"))
	if err != nil {
		return fmt.Errorf("--max-input-size: %w", err)
	}
	cliapp.EnvOf(c).MaxInput = n
	return nil
}

// usageError is every command's flag parsing error: one line naming the
// flag as written and the help to read, exit 1; no help on stdout.
func usageError(c *cli.Context, err error, _ bool) error {
	return cliapp.FlagError(c, err)
}

func versionString() string {
	if c := commitString(); c != "" {
		return toolVersionString() + " (" + c + ")"
	}
	return toolVersionString()
}
