package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-logr/logr"
	"github.com/urfave/cli/v2"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"

	"gitlab.com/sylva-projects/sylva-planner/fileio"
	"gitlab.com/sylva-projects/sylva-planner/status/kube"
)

// Exit codes, the contract of docs/cli.md.
const (
	exitOK       = 0
	exitError    = 1
	exitBlocked  = 2
	exitGateFail = 3
	exitHeld     = 4
)

// Set at build time with -ldflags -X main.version=….
var (
	version = "dev"
	commit  = ""
)

// exitError carries an exit code through urfave/cli, which would otherwise
// lose it when wrapped.
type codeError struct {
	code int
	err  error
}

func (e *codeError) Error() string {
	if e.err == nil {
		return ""
	}
	return e.err.Error()
}
func (e *codeError) Unwrap() error { return e.err }
func (e *codeError) ExitCode() int { return e.code }

// withCode returns an error that makes run exit with code; a nil err exits
// silently.
func withCode(code int, err error) error { return &codeError{code: code, err: err} }

// env carries what the commands may read of the process environment, so
// tests run them in-process.
type env struct {
	stdout, stderr io.Writer
	getenv         func(string) string
	// today is the default --as-of date.
	today time.Time
	// dir resolves relative paths given on the command line; empty means
	// the process's working directory.
	dir string
	// maxInput is the size limit of every input file (--max-input-size).
	maxInput int64
	// requestTimeout bounds each API request (--request-timeout).
	requestTimeout time.Duration
	// as and asGroups are impersonated by every request (--as, --as-group).
	as       string
	asGroups []string
}

// restConfig is the one kubeconfig rule of every command (kube.RESTConfig
// over the environment of the command line) with --as, --as-group and the
// request timeout applied.
func (e *env) restConfig(kubeconfig, context string) (*rest.Config, string, error) {
	cfg, name, err := kube.RESTConfig(kube.ConfigOptions{Kubeconfig: e.path(kubeconfig), Context: context, As: e.as, AsGroups: e.asGroups, Getenv: e.getenv})
	if err != nil {
		return nil, "", err
	}
	cfg.Timeout = e.requestTimeout
	return cfg, name, nil
}

// readFile reads an input file named by flag (such as "--status"): a
// regular file within --max-input-size. The error names the flag.
func (e *env) readFile(flag, name string) ([]byte, error) {
	data, err := fileio.ReadFile(e.path(name), e.maxInput)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", flag, err)
	}
	return data, nil
}

// dirFS is the directory root given on the command line as a file system
// that reads only regular files within --max-input-size.
func (e *env) dirFS(root string) fs.FS { return fileio.DirFS(e.path(root), e.maxInput) }

// path resolves a path given on the command line.
func (e *env) path(p string) string {
	if e.dir == "" || p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(e.dir, p)
}

type envKey struct{}

func envOf(c *cli.Context) *env { return c.Context.Value(envKey{}).(*env) }

// run builds the application and runs it, returning the exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	return runIn(ctx, "", args, stdout, stderr, getenv)
}

// runIn is run with relative paths resolved against dir. A panic of the
// command is an operational error (1, one line), never a gate code.
func runIn(ctx context.Context, dir string, args []string, stdout, stderr io.Writer, getenv func(string) string) (code int) {
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
	e := &env{stdout: stdout, stderr: stderr, getenv: getenv, today: time.Now().UTC().Truncate(24 * time.Hour), dir: dir, maxInput: fileio.DefaultMaxSize, requestTimeout: defaultRequestTimeout}
	app := newApp(stdout, stderr)
	if answers, ok := flagValueCompletion(app, args); ok {
		fmt.Fprintln(stdout, strings.Join(answers, "\n"))
		return exitOK
	}
	args, err := normalizeArgs(app, args)
	if err == nil {
		err = app.RunContext(context.WithValue(ctx, envKey{}, e), args)
	} else {
		err = withCode(exitError, err)
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
	var ec interface{ ExitCode() int }
	code = exitError
	if errors.As(err, &ec) {
		code = ec.ExitCode()
	}
	if msg := err.Error(); msg != "" {
		fmt.Fprintf(stderr, "sylva-planner: %s\n", strings.TrimSpace(msg))
	}
	return code
}

func newApp(stdout, stderr io.Writer) *cli.App {
	app := &cli.App{
		Name:  "sylva-planner",
		Usage: "plan and drive Sylva release transitions (for example 1.4 → 1.6 in one go)",
		Description: "sylva-planner computes the reconciliation passes of the sylva-units HelmRelease that take a\n" +
			"cluster from one Sylva release to another: the control plane steps through every Kubernetes\n" +
			"minor, Longhorn through every minor, the workers roll once.\n\n" +
			"Exit codes: 0 done; 1 operational error (bad input, unreadable file, unreachable cluster);\n" +
			"2 blocked (an actionable blocker, or an unassessed required check); 3 the gate could not\n" +
			"evaluate; 4 held (every blocker waits on upstream or is pinned).",
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
		},
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "max-input-size", Usage: "largest input `SIZE` read from a file (bytes, or with KiB, MiB, GiB)", Value: fileio.FormatSize(fileio.DefaultMaxSize), EnvVars: []string{"SYLVA_PLANNER_MAX_INPUT_SIZE"}},
		},
		Before:       setLimits,
		OnUsageError: usageError,
	}
	setUsageErrors(app.Commands)
	setCompletion(app.Commands)
	app.BashComplete = completeCommands
	withConnectionFlags(app.Commands)
	withRenderFlags(app.Commands)
	return app
}

// setLimits reads the global limits into the environment of the commands.
func setLimits(c *cli.Context) error {
	n, err := fileio.ParseSize(c.String("max-input-size"))
	if err != nil {
		return withCode(exitError, fmt.Errorf("--max-input-size: %w", err))
	}
	envOf(c).maxInput = n
	return nil
}

func versionString() string {
	if commit != "" {
		return toolVersionString() + " (" + commit + ")"
	}
	return toolVersionString()
}
