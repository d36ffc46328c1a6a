package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-logr/logr"
	"github.com/urfave/cli/v2"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"

	"gitlab.com/sylva-projects/sylva-planner/action"
	"gitlab.com/sylva-projects/sylva-planner/catalog"
	"gitlab.com/sylva-projects/sylva-planner/cliapp"
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

// outcomeExit is the exit of every command that computed its result: the
// exit code of the outcome (action.Outcome.ExitCode), silently.
func outcomeExit(o action.Outcome) error { return withCode(o.ExitCode(), nil) }

// env carries what the commands may read of the process environment, so
// tests run them in-process.
type env struct {
	stdout, stderr io.Writer
	// stdin is what an input named "-" reads; read once per process.
	stdin io.Reader
	// stdinRead is set once an input named "-" was read.
	stdinRead bool
	// stdinCatalog is the catalog --catalog - read.
	stdinCatalog *catalog.Catalog
	getenv       func(string) string
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
	// args is the command line the run was given, which a budgeted
	// command hands to its child.
	args []string
	// marks is true when the table may carry Unicode status marks (✔, ✘):
	// standard output is a terminal and NO_COLOR is unset (see
	// terminalMarks); plain ASCII words otherwise.
	marks bool
	// child runs the commands that declare the render budget (budgeted)
	// in a child process; nil runs them in this process (the child itself,
	// in-process tests).
	child budgetRunner
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
// regular file within --max-input-size, or standard input for "-" (once:
// a second "-" is refused). The error names the flag.
func (e *env) readFile(flag, name string) ([]byte, error) {
	data, err := e.read(name)
	if err != nil {
		if name == fileio.StdinName {
			flag += " -"
		}
		return nil, fmt.Errorf("%s: %w", flag, err)
	}
	return data, nil
}

// read is readFile without the flag in the error.
func (e *env) read(name string) ([]byte, error) {
	if name != fileio.StdinName {
		return fileio.ReadFile(e.path(name), e.maxInput)
	}
	if e.stdinRead {
		return nil, errors.New("standard input was already read; only one input may be -")
	}
	e.stdinRead = true
	return fileio.ReadStdin(e.stdin, e.maxInput)
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
	e := newEnv("", stdout, stderr, getenv)
	e.stdin = os.Stdin
	return runEnv(ctx, e, args)
}

// runIn is run with relative paths resolved against dir and no standard
// input.
func runIn(ctx context.Context, dir string, args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	return runEnv(ctx, newEnv(dir, stdout, stderr, getenv), args)
}

// newEnv is the environment of a run: today is the current day (UTC).
func newEnv(dir string, stdout, stderr io.Writer, getenv func(string) string) *env {
	return &env{stdout: stdout, stderr: stderr, getenv: getenv, today: time.Now().UTC().Truncate(24 * time.Hour), dir: dir, maxInput: fileio.DefaultMaxSize, requestTimeout: defaultRequestTimeout}
}

// runEnv runs the application in environment e. A panic of the command is
// an operational error (1, one line), never a gate code.
func runEnv(ctx context.Context, e *env, args []string) (code int) {
	stdout, stderr := e.stdout, e.stderr
	e.args = args
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
		fmt.Fprintf(stderr, "sylva-planner: %s\n", strings.TrimSpace(cliapp.AsTyped(app, msg)))
	}
	return code
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
	withConnectionFlags(app.Commands)
	withOutputEnv(app.Commands)
	cliapp.OneStdin(app.Commands, fileio.StdinName, func(err error) error { return withCode(exitError, err) })
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

// usageError is every command's flag parsing error: one line naming the
// flag as written and the help to read, exit 1; no help on stdout.
func usageError(c *cli.Context, err error, _ bool) error {
	return withCode(exitError, cliapp.FlagError(c, err))
}

func versionString() string {
	if c := commitString(); c != "" {
		return toolVersionString() + " (" + c + ")"
	}
	return toolVersionString()
}
