package main

import (
	"context"
	"io"
	"os"
	"sync"
	"time"

	"github.com/go-logr/logr"
	"github.com/urfave/cli/v2"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"

	"gitlab.com/sylva-projects/sylva-planner/action"
	"gitlab.com/sylva-projects/sylva-planner/cliapp"
	"gitlab.com/sylva-projects/sylva-planner/reconciler"
	"gitlab.com/sylva-projects/sylva-planner/status/statuskube"
)

// Exit codes, the contract of docs/cli.md.
const (
	exitOK       = cliapp.ExitOK
	exitError    = cliapp.ExitError
	exitBlocked  = action.ExitCodeBlocked
	exitGateFail = action.ExitCodeUnevaluated
	exitHeld     = action.ExitCodeHeld
)

// Set at build time with -ldflags -X main.version=….
var (
	version = "dev"
	commit  = ""
)

// outcomeExit is the exit of every command that computed its result: the
// exit code of the outcome (action.Outcome.ExitCode), silently.
func outcomeExit(o action.Outcome) error { return cliapp.WithCode(o.ExitCode(), nil) }

// restConfig is the one kubeconfig rule of every command (statuskube.RESTConfig
// over the environment of the command line) with --as, --as-group and the
// request timeout applied.
func restConfig(e *cliapp.Env, kubeconfig, context string) (*rest.Config, string, error) {
	cfg, name, err := statuskube.RESTConfig(statuskube.ConfigOptions{Kubeconfig: e.Path(kubeconfig), Context: context, As: e.As, AsGroups: e.AsGroups, Getenv: e.Getenv})
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

// silenceKlog makes klog and controller-runtime's logger silent, once per
// process (both loggers are global, and a process may run the application
// more than once, at the same time): client-go logs through klog straight
// to the process's stderr, and controller-runtime writes a goroutine dump
// there when its logger is still unset 30 seconds after the process
// started; the commands report errors themselves (the controller routes
// both to its JSON log).
var silenceKlog = sync.OnceFunc(func() {
	klog.SetLogger(logr.Discard())
	reconciler.RouteControllerRuntimeLogs(logr.Discard())
})

// runEnv runs the application in environment e (cliapp.Run), its help
// wrapped to the width of e's standard output (cliapp.HelpWidth).
func runEnv(ctx context.Context, e *cliapp.Env, args []string) int {
	silenceKlog()
	app := newApp(e.Stdout, e.Stderr)
	cliapp.WithHelp(app, cliapp.HelpWidth(e))
	return cliapp.Run(ctx, e, app, args, completer)
}

func newApp(stdout, stderr io.Writer) *cli.App {
	app := &cli.App{
		Name:  "sylva-planner",
		Usage: "plan and drive Sylva release transitions (for example 1.4 → 1.6 in one go)",
		Description: "sylva-planner computes the reconciliation passes of the sylva-units HelmRelease that take a\n" +
			"cluster from one Sylva release to another: the control plane steps through every Kubernetes\n" +
			"minor, Longhorn through every minor, the workers roll on every pass that changes the Kubernetes\n" +
			"version (once where the catalog says the chart can hold them back).\n\n" +
			"Output: -o on each command; every JSON and YAML document carries apiVersion, kind and\n" +
			"metadata (toolVersion, catalogVersion, asOf). An input file given as - is read from standard\n" +
			"input (one per command). See docs/cli.md.\n\n" +
			"Examples:\n" +
			"  # the passes from Sylva 1.4 to 1.6, and whether the upgrade may start\n" +
			"  sylva-planner plan --from 1.4 --to 1.6\n\n" +
			"  # where the cluster of the current kubeconfig context stands\n" +
			"  sylva-planner status -n sylva-system\n\n" +
			"  # what a command does, its examples, exit codes and options\n" +
			"  sylva-planner plan --help\n\n" +
			"Exit codes:\n" +
			"  0 done; nothing at or above --fail-on (default blocker)\n" +
			"  1 operational error: bad input, an unreadable file, a cluster unreachable or silent\n" +
			"    (--request-timeout), a release the catalog does not cover, interrupted (SIGINT, SIGTERM);\n" +
			"    one line on standard error names the input and the fix\n" +
			"  2 blocked: an actionable blocker, or a required check not assessed (verdict unknown)\n" +
			"  3 the gate itself could not evaluate: treat it as blocked\n" +
			"  4 held: every blocker waits on upstream or is pinned on purpose\n\n" +
			"Each command's help gives the codes it exits with.",
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
	}
	cliapp.Conventions(app)
	return app
}

// versionString is this binary's version and commit (action.BuildToolVersion).
func versionString() string { return action.BuildToolVersion(version, commit).String() }
