package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/urfave/cli/v2"

	"gitlab.com/sylva-projects/sylva-planner/fileio"
	"gitlab.com/sylva-projects/sylva-planner/renderchild"
)

// The commands that run chart or user templates declare it with budgeted
// and carry renderFlags: the whole command then runs in a child process
// of this binary within the render budget of its flags, which the parent
// enforces (renderchild).

// renderFlags are --render-memory, --render-timeout and --progress,
// carried by every command that declares the budget with budgeted.
func renderFlags() []cli.Flag {
	return []cli.Flag{
		progressFlag,
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

// budgeted declares that action runs chart or user templates: when when
// is nil or true for the run, and the process may start a budgeted child
// (env.child is set: the main process, not the child itself nor an
// in-process test), the whole command runs in that child, with the same
// arguments, within the budget of its flags. The command must carry
// renderFlags.
func budgeted(action cli.ActionFunc, when func(*cli.Context) bool) cli.ActionFunc {
	return func(c *cli.Context) error {
		e := envOf(c)
		if e.child == nil || (when != nil && !when(c)) {
			return action(c)
		}
		b, err := budgetOf(c)
		if err != nil {
			return withCode(exitError, err)
		}
		return e.child.run(c.Context, e, b)
	}
}

// budgetRunner runs a command line within a render budget.
type budgetRunner interface {
	// run runs the command line of e (e.args) within b and returns what
	// the command returns.
	run(ctx context.Context, e *env, b renderchild.Budget) error
}

// childRunner runs the command line in a budgeted child of this binary.
type childRunner struct{ *renderchild.Runner }

func newChildRunner() childRunner { return childRunner{renderchild.NewRunner()} }

// run returns the child's own exit code (its messages already written),
// or a budget hit, crash or interruption as one line, exit 1. The child
// is told when this process's stderr is a terminal (its own is a pipe).
func (r childRunner) run(ctx context.Context, e *env, b renderchild.Budget) error {
	cmd := renderchild.Command{Args: e.args, Dir: e.dir, Stdin: e.stdin, Stdout: e.stdout, Stderr: e.stderr}
	if isTerminal(e.stderr) {
		cmd.Env = []string{progressEnv + "=1"}
	}
	code, err := r.Run(ctx, cmd, b)
	if err != nil {
		return withCode(exitError, err)
	}
	if code < 0 || code > exitHeld {
		return withCode(exitError, errors.New("the render ended with an unknown exit code"))
	}
	return withCode(code, nil)
}
