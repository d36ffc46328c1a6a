package cliapp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/urfave/cli/v2"

	"gitlab.com/sylva-projects/sylva-planner/fileio"
	"gitlab.com/sylva-projects/sylva-planner/renderchild"
)

// The commands that run chart or user templates declare it with Budgeted
// and carry RenderFlags: the whole command then runs in a child process
// of this binary within the render budget of its flags, which the parent
// enforces (renderchild). Those commands report long work with Progress.

// RenderFlags are --progress, --render-memory and --render-timeout,
// carried by every command that declares the budget with Budgeted.
func RenderFlags() []cli.Flag {
	return []cli.Flag{
		&cli.BoolFlag{Name: "progress", Usage: "report what the chart render is doing on stderr (scenario n of m, elapsed time); on by default when stderr is a terminal"},
		&cli.StringFlag{Name: "render-memory", Usage: "resident memory `SIZE` the template render may use (bytes, or with MiB, GiB); beyond it the render is stopped, exit 1", Value: fileio.FormatSize(renderchild.DefaultMemory), EnvVars: []string{"SYLVA_PLANNER_RENDER_MEMORY"}},
		&cli.DurationFlag{Name: "render-timeout", Usage: "wall time `DURATION` the template render may take; beyond it the render is stopped, exit 1 (the default is generous; a slow or loaded machine is the usual reason to raise it)", Value: renderchild.DefaultTimeout, EnvVars: []string{"SYLVA_PLANNER_RENDER_TIMEOUT"}},
	}
}

// budgetOf reads the budget from the command's flags.
func budgetOf(c *cli.Context) (renderchild.Budget, error) {
	mem, err := fileio.ParseSize(c.String("render-memory"))
	if err != nil {
		return renderchild.Budget{}, fmt.Errorf("--render-memory: %w", err)
	}
	d := c.Duration("render-timeout")
	if d <= 0 {
		return renderchild.Budget{}, fmt.Errorf("--render-timeout %s: give a positive duration such as 10m", d)
	}
	return renderchild.Budget{Memory: mem, Timeout: d}, nil
}

// Budgeted declares that action runs chart or user templates: when when
// is nil or true for the run, and the process may start a budgeted child
// (Env.Child is set: the main process, not the child itself nor an
// in-process test), the whole command runs in that child, with the same
// arguments, within the budget of its flags. The command must carry
// RenderFlags.
func Budgeted(action cli.ActionFunc, when func(*cli.Context) bool) cli.ActionFunc {
	return func(c *cli.Context) error {
		e := EnvOf(c)
		if e.Child == nil || (when != nil && !when(c)) {
			return action(c)
		}
		b, err := budgetOf(c)
		if err != nil {
			return err
		}
		return e.Child.Run(c.Context, e, b)
	}
}

// BudgetRunner runs a command line within a render budget.
type BudgetRunner interface {
	// Run runs the command line of e (Env.Args) within b and returns what
	// the command returns.
	Run(ctx context.Context, e *Env, b renderchild.Budget) error
}

// ChildRunner runs the command line in a budgeted child of this binary.
type ChildRunner struct {
	*renderchild.Runner
	// MaxCode is the highest exit code a command gives; a child exiting
	// with another is an error.
	MaxCode int
}

// NewChildRunner is a ChildRunner of this binary.
func NewChildRunner(maxCode int) ChildRunner {
	return ChildRunner{Runner: renderchild.NewRunner(), MaxCode: maxCode}
}

// Run returns the child's own exit code (its messages already written),
// or a budget hit, crash or interruption as one line, exit 1. The child
// is told when this process's stderr is a terminal (its own is a pipe).
func (r ChildRunner) Run(ctx context.Context, e *Env, b renderchild.Budget) error {
	cmd := renderchild.Command{Args: e.Args, Dir: e.Dir, Stdin: e.Stdin, Stdout: e.Stdout, Stderr: e.Stderr}
	if IsTerminal(e.Stderr) {
		cmd.Env = []string{progressEnv + "=1"}
	}
	code, err := r.Runner.Run(ctx, cmd, b)
	if err != nil {
		return err
	}
	if code < 0 || code > r.MaxCode {
		return errors.New("the render ended with an unknown exit code")
	}
	return WithCode(code, nil)
}

// progressEnv tells a budgeted child that its parent's stderr is a
// terminal: the child's own stderr is a pipe to the parent.
const progressEnv = "SYLVA_PLANNER_PROGRESS"

// Progress reports long chart work on stderr, one line per step with the
// time elapsed since the command started; a nil *Progress reports nothing.
// Nothing goes to stdout, so -o json|yaml output is unchanged.
type Progress struct {
	w     io.Writer
	what  string
	now   func() time.Time
	start time.Time
}

// StartProgress is the progress of the command what, or nil when it is
// off: on with --progress, or when stderr (for a budgeted child, its
// parent's) is a terminal.
func StartProgress(c *cli.Context, what string) *Progress {
	e := EnvOf(c)
	if !c.Bool("progress") && e.Getenv(progressEnv) != "1" && !IsTerminal(e.Stderr) {
		return nil
	}
	return &Progress{w: e.Stderr, what: what, now: e.Now, start: e.Now()}
}

// Say writes one progress line.
func (p *Progress) Say(format string, args ...any) {
	if p == nil {
		return
	}
	fmt.Fprintf(p.w, "%s: %s (%s)\n", p.what, fmt.Sprintf(format, args...), p.now().Sub(p.start).Round(100*time.Millisecond))
}
