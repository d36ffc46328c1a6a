// Command sylva-planner plans and drives Sylva release transitions: it
// computes the reconciliation passes of the sylva-units HelmRelease that take
// a cluster from one Sylva release to another, and gates the upgrade.
//
// Exit codes: 0 done, 1 operational error, 2 blocked, 3 the gate could not
// evaluate, 4 held. See docs/cli.md.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"gitlab.com/sylva-projects/sylva-planner/cliapp"
	"gitlab.com/sylva-projects/sylva-planner/fileio"
	"gitlab.com/sylva-projects/sylva-planner/renderchild"
)

// defaultInterruptGrace is how long the work may take to stop after the
// first SIGINT or SIGTERM before the process exits anyway; the environment
// variable interruptGraceEnv (a positive duration) changes it.
const defaultInterruptGrace = 5 * time.Second

const interruptGraceEnv = "SYLVA_PLANNER_INTERRUPT_GRACE"

// interruptGrace is the grace of interruptGraceEnv in getenv: unset or
// empty is the default; anything but a positive duration is an error
// naming the variable and the form.
func interruptGrace(getenv func(string) string) (time.Duration, error) {
	v := getenv(interruptGraceEnv)
	if v == "" {
		return defaultInterruptGrace, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%s=%s: give a positive duration, such as 5s or 1m, or unset it for %s", interruptGraceEnv, v, defaultInterruptGrace)
	}
	return d, nil
}

func main() {
	// Helm's chart code warns through the standard logger.
	cliapp.RouteStdLog(os.Stderr, "sylva-planner: ")
	if renderchild.Start(os.Getenv(renderchild.Env)) {
		// A budgeted child (renderchild): its codes are shifted so that the
		// parent tells them from a crash.
		code := run(context.Background(), os.Args, os.Stdout, os.Stderr, os.Getenv)
		os.Exit(renderchild.Exit(code))
	}
	grace, err := interruptGrace(os.Getenv)
	if err != nil {
		fmt.Fprintln(os.Stderr, "sylva-planner: "+err.Error())
		os.Exit(exitError)
	}
	ctx, cancel := context.WithCancel(context.Background())
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-sigs
		// No output file is replaced after the signal: one is either
		// written before it or left as it was.
		fileio.Interrupt()
		// The first signal cancels the work, which returns exit 1 with
		// "interrupted"; work that does not observe the context (a long
		// template render) is cut short after interruptGrace, and a second
		// signal exits at once.
		cancel()
		select {
		case <-sigs:
		case <-time.After(grace):
		}
		fmt.Fprintln(os.Stderr, "sylva-planner: interrupted")
		os.Exit(exitError)
	}()
	// The commands that run templates (budgeted) run in a child within the
	// render budget.
	e := newEnv("", os.Stdout, os.Stderr, os.Getenv)
	e.Stdin = os.Stdin
	e.Marks = cliapp.TerminalMarks(os.Stdout, os.Getenv)
	e.Child = cliapp.NewChildRunner(exitHeld)
	os.Exit(runEnv(ctx, e, os.Args))
}
