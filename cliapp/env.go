package cliapp

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"time"

	"github.com/urfave/cli/v2"

	"gitlab.com/sylva-projects/sylva-planner/fileio"
)

// Env is what a command may read of the process environment, so that
// tests run the commands in-process: its streams, environment variables,
// the day it runs on, the directory relative paths resolve against and the
// limits of its global and connection flags.
type Env struct {
	Stdout, Stderr io.Writer
	// Stdin is what an input named "-" reads (once: see Read).
	Stdin  io.Reader
	Getenv func(string) string
	// Now is the clock of the run (progress lines); Today, the default
	// --as-of date, is its day (UTC).
	Now   func() time.Time
	Today time.Time
	// Dir resolves relative paths given on the command line; empty means
	// the process's working directory.
	Dir string
	// MaxInput is the size limit of every input file (--max-input-size).
	MaxInput int64
	// RequestTimeout bounds each API request (--request-timeout); As and
	// AsGroups are impersonated by every request (--as, --as-group).
	RequestTimeout time.Duration
	As             string
	AsGroups       []string
	// Args is the command line the run was given, which a budgeted
	// command hands to its child.
	Args []string
	// Marks is true when a table may carry Unicode status marks (✔, ✘):
	// standard output is a terminal and NO_COLOR is unset (TerminalMarks);
	// plain ASCII words otherwise.
	Marks bool
	// Child runs the commands that declare the render budget (Budgeted)
	// in a child process; nil runs them in this process (the child itself,
	// in-process tests).
	Child BudgetRunner

	stdin     []byte
	stdinRead bool
}

// NewEnv is the environment of a run whose relative paths resolve against
// dir, with the default limits and the clock now; Today is now's day (UTC).
func NewEnv(dir string, stdout, stderr io.Writer, getenv func(string) string, now func() time.Time) *Env {
	return &Env{Stdout: stdout, Stderr: stderr, Getenv: getenv, Now: now, Today: now().UTC().Truncate(24 * time.Hour), Dir: dir, MaxInput: fileio.DefaultMaxSize, RequestTimeout: DefaultRequestTimeout}
}

type envKey struct{}

// WithEnv is ctx carrying e, which EnvOf returns to the commands.
func WithEnv(ctx context.Context, e *Env) context.Context { return context.WithValue(ctx, envKey{}, e) }

// EnvOf is the environment of the command c runs.
func EnvOf(c *cli.Context) *Env { return c.Context.Value(envKey{}).(*Env) }

// ReadFile reads an input file named by flag (such as "--status"): a
// regular file within --max-input-size, or standard input for "-". The
// error names the flag.
func (e *Env) ReadFile(flag, name string) ([]byte, error) {
	data, err := e.Read(name)
	if err != nil {
		if name == fileio.StdinName {
			flag += " -"
		}
		return nil, fmt.Errorf("%s: %w", flag, err)
	}
	return data, nil
}

// Read is ReadFile without the flag in the error. Standard input is read
// once; reading it again gives the same bytes (OneStdin has refused two
// inputs named "-").
func (e *Env) Read(name string) ([]byte, error) {
	if name != fileio.StdinName {
		return fileio.ReadFile(e.Path(name), e.MaxInput)
	}
	if !e.stdinRead {
		data, err := fileio.ReadStdin(e.Stdin, e.MaxInput)
		if err != nil {
			return nil, err
		}
		e.stdin, e.stdinRead = data, true
	}
	return e.stdin, nil
}

// DirFS is the directory root given on the command line as a file system
// that reads only regular files within --max-input-size.
func (e *Env) DirFS(root string) fs.FS { return fileio.DirFS(e.Path(root), e.MaxInput) }

// Path resolves a path given on the command line.
func (e *Env) Path(p string) string {
	if e.Dir == "" || p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(e.Dir, p)
}

// WorkDir is the absolute directory relative paths resolve against (Path):
// Dir, or the process's working directory when Dir is empty; "" when it
// cannot be told. A command suggested to run in another directory gives
// its paths joined to it (envelope.Selection.Abs).
func (e *Env) WorkDir() string {
	d, err := filepath.Abs(cmp.Or(e.Dir, "."))
	if err != nil {
		return ""
	}
	return d
}

// Exit codes every command shares (docs/cli.md gives the others).
const (
	ExitOK    = 0
	ExitError = 1
)

// codeError carries an exit code through urfave/cli, which would otherwise
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

// WithCode is an error that makes the run exit with code; a nil err exits
// silently.
func WithCode(code int, err error) error { return &codeError{code: code, err: err} }

// ExitCodeOf is the exit code err carries (WithCode), else 1: an error
// without one is an operational error, whatever the errors it wraps say
// of their own exit (a failed git run's, say).
func ExitCodeOf(err error) int {
	var ce *codeError
	if errors.As(err, &ce) {
		return ce.code
	}
	return ExitError
}
