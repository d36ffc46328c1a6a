package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/urfave/cli/v2"
)

// progressEnv tells a budgeted child that its parent's stderr is a
// terminal: the child's own stderr is a pipe to the parent.
const progressEnv = "SYLVA_PLANNER_PROGRESS"

// progressFlag is --progress, carried by the commands that render chart
// templates.
var progressFlag = &cli.BoolFlag{Name: "progress", Usage: "report what the chart render is doing on stderr (scenario n of m, elapsed time); on by default when stderr is a terminal"}

// progress reports long chart work on stderr, one line per step with the
// time elapsed since the command started; a nil *progress reports nothing.
// Nothing goes to stdout, so -o json|yaml output is unchanged.
type progress struct {
	w     io.Writer
	what  string
	start time.Time
}

// startProgress returns the progress of the command what, or nil when it
// is off: on with --progress, or when stderr (for a budgeted child, its
// parent's) is a terminal.
func startProgress(c *cli.Context, what string) *progress {
	e := envOf(c)
	if !c.Bool("progress") && e.getenv(progressEnv) != "1" && !isTerminal(e.stderr) {
		return nil
	}
	return &progress{w: e.stderr, what: what, start: time.Now()}
}

// say writes one progress line.
func (p *progress) say(format string, args ...any) {
	if p == nil {
		return
	}
	fmt.Fprintf(p.w, "%s: %s (%s)\n", p.what, fmt.Sprintf(format, args...), time.Since(p.start).Round(100*time.Millisecond))
}

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
