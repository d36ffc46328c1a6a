package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/urfave/cli/v2"

	"gitlab.com/sylva-projects/sylva-planner/fileio"
)

// The commands that run chart or user templates run templates from their
// input, which may loop, recurse or allocate without end, and Helm's engine
// cannot be interrupted. Each such command declares it with budgeted (and
// carries renderFlags): it then runs in a child process of the same binary
// within a render budget, while the parent watches it.
//
//   - Memory: the parent reads the child's resident set size every
//     rssPollInterval and kills it beyond --render-memory. The child sets a
//     soft memory limit (debug.SetMemoryLimit) below the budget, so its
//     collector works harder before the budget is reached. Address space is
//     not limited: a Go program reserves several times what it uses, and a
//     limit on it killed valid renders of the real chart.
//   - Time: the parent kills the child after --render-timeout (wall time).
//   - Stack: the child's goroutine stacks are limited to childMaxStack, so a
//     template that includes itself ends in a second.
//
// The child dies with the parent (on Linux). Any crash of the child (a Go
// runtime fatal error exits 2, which is also the code for "blocked") is
// mapped to exit 1 with one line; the child reports its own exit codes
// shifted by childCodeBase so that the two cannot be confused.

const (
	// renderChildEnv marks the child and carries its memory budget in bytes
	// and its parent's process ID ("BYTES:PID"): a value that does not name
	// this process's parent (one set by hand) marks nothing.
	renderChildEnv = "SYLVA_PLANNER_RENDER_CHILD"
	// childCodeBase is added to the child's exit code.
	childCodeBase = 64
	// childMaxStack bounds the goroutine stack of the child: a template
	// that includes itself overflows it in a second, not after gigabytes.
	childMaxStack = 64 << 20

	// defaultRenderMemory is 4 GiB of resident memory. A render of a
	// test-values case of the real sylva-units chart peaks at 40–150 MB,
	// and at up to 1.5 GB with --validate (capo-mgmt-workers; helm
	// template of the management case: 420–650 MiB), much of it garbage
	// the soft limit has collected sooner when near the budget; a
	// template that allocates without end reaches it in seconds.
	defaultRenderMemory = int64(4 << 30)
	// defaultRenderTimeout is 10 minutes of wall time. The longest valid
	// run measured, values check --chart of a three-pass plan on a busy
	// two-core machine, took about 5 minutes; a run takes longer on a
	// loaded machine, not because of the chart. A template that recurses
	// or allocates without end is stopped by the stack or memory budget
	// long before; only a loop that does neither runs until the timeout.
	defaultRenderTimeout = 10 * time.Minute

	// rssPollInterval is how often the parent reads the child's resident
	// memory: a few microseconds per read; a template allocating as fast
	// as the machine allows goes at most a few hundred MB past the budget
	// before it is killed.
	rssPollInterval = 25 * time.Millisecond
	// crashCaptureLimit bounds the crash report kept from the child.
	crashCaptureLimit = 64 << 10
)

// renderFlags are --render-memory, --render-timeout and --progress,
// carried by every command that declares the budget with budgeted.
func renderFlags() []cli.Flag {
	return []cli.Flag{
		progressFlag,
		&cli.StringFlag{Name: "render-memory", Usage: "resident memory `SIZE` the template render may use (bytes, or with MiB, GiB); beyond it the render is stopped, exit 1", Value: fileio.FormatSize(defaultRenderMemory), EnvVars: []string{"SYLVA_PLANNER_RENDER_MEMORY"}},
		&cli.DurationFlag{Name: "render-timeout", Usage: "wall time `DURATION` the template render may take; beyond it the render is stopped, exit 1 (the default is generous; a slow or loaded machine is the usual reason to raise it)", Value: defaultRenderTimeout, EnvVars: []string{"SYLVA_PLANNER_RENDER_TIMEOUT"}},
	}
}

// budget is the render budget of one run.
type budget struct {
	// memory is the resident memory the child may use, in bytes.
	memory int64
	// timeout is the wall time the child may take.
	timeout time.Duration
}

// budgetOf reads the budget from the command's flags.
func budgetOf(c *cli.Context) (budget, error) {
	mem, err := fileio.ParseSize(c.String("render-memory"))
	if err != nil {
		return budget{}, fmt.Errorf("--render-memory: %w", err)
	}
	d := c.Duration("render-timeout")
	if d <= 0 {
		return budget{}, fmt.Errorf("--render-timeout %s: give a positive duration such as 10m", d)
	}
	return budget{memory: mem, timeout: d}, nil
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
	run(ctx context.Context, e *env, b budget) error
}

// childRunner starts this binary again as a budgeted child and watches it.
type childRunner struct {
	// exe is this binary, err why it is unknown.
	exe string
	err error
	// environ is the environment of the child, without renderChildEnv.
	environ []string
	// poll is how often the child's resident memory is read.
	poll time.Duration
	// rss reads the resident memory of a process (residentBytes).
	rss func(pid int) (int64, error)
}

// newChildRunner is the runner of the main process.
func newChildRunner() *childRunner {
	exe, err := os.Executable()
	return &childRunner{exe: exe, err: err, environ: os.Environ(), poll: rssPollInterval, rss: residentBytes}
}

// verdict is how a watched child ended.
type verdict int

const (
	// verdictExited: the child exited by itself (or crashed).
	verdictExited verdict = iota
	// verdictMemory: its resident memory went past the budget.
	verdictMemory
	// verdictTime: it ran past the timeout.
	verdictTime
	// verdictStopped: the work was cancelled (a signal).
	verdictStopped
)

// watch waits for the first of: the child exits (done is closed), its
// resident memory read at a tick exceeds limit, the deadline, stop. A
// child that has exited wins over the others; a failed read (the child
// just exited, or no /proc) is not a verdict.
func watch(done <-chan struct{}, tick, deadline <-chan time.Time, stop <-chan struct{}, rss func() (int64, error), limit int64) verdict {
	for {
		select {
		case <-done:
			return verdictExited
		case <-stop:
			return verdictStopped
		case <-deadline:
			if exited(done) {
				return verdictExited
			}
			return verdictTime
		case <-tick:
			if n, err := rss(); err == nil && n > limit && !exited(done) {
				return verdictMemory
			}
		}
	}
}

func exited(done <-chan struct{}) bool {
	select {
	case <-done:
		return true
	default:
		return false
	}
}

// budgetError is a budget hit: which budget, its value and the flag that
// raises it, in one line.
type budgetError struct {
	v verdict
	b budget
}

func (e *budgetError) Error() string {
	if e.v == verdictMemory {
		return fmt.Sprintf("the render used more than --render-memory %s of resident memory; raise it with --render-memory", fileio.FormatSize(e.b.memory))
	}
	return fmt.Sprintf("the render took longer than --render-timeout %s; raise it with --render-timeout", e.b.timeout)
}

// childEnv is the child's environment: this process's, the budget, and
// whether this process's stderr is a terminal (the child's is a pipe).
func (r *childRunner) childEnv(e *env, b budget) []string {
	out := append(append([]string(nil), r.environ...), renderChildEnv+"="+strconv.FormatInt(b.memory, 10)+":"+strconv.Itoa(os.Getpid()))
	if isTerminal(e.stderr) {
		out = append(out, progressEnv+"=1")
	}
	return out
}

// run runs the command line of e in a child within b and returns what the
// command returns: the child's own exit code (its messages already
// written), or a budget hit or crash as one line, exit 1.
func (r *childRunner) run(ctx context.Context, e *env, b budget) error {
	if r.err != nil {
		return withCode(exitError, fmt.Errorf("cannot start the render: %w", r.err))
	}
	stderr := &crashFilter{w: e.stderr}
	cmd := &exec.Cmd{
		Path:        r.exe,
		Args:        e.args, // argv[0] too: it may make this the kubectl plugin
		Env:         r.childEnv(e, b),
		Dir:         e.dir,
		Stdin:       e.stdin,
		Stdout:      e.stdout,
		Stderr:      stderr,
		SysProcAttr: childSysProcAttr(),
		// The child is killed or exited; do not wait long for a stream
		// that something else holds open.
		WaitDelay: 5 * time.Second,
	}
	started := make(chan error, 1)
	done := make(chan struct{})
	var waitErr error
	go func() {
		// The child's parent-death signal is tied to the thread that
		// starts it: keep this goroutine on that thread, and the thread
		// alive, until the child has exited.
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		waitErr = cmd.Wait()
		close(done)
	}()
	if err := <-started; err != nil {
		return withCode(exitError, fmt.Errorf("cannot start the render: %w", err))
	}
	tick := time.NewTicker(r.poll)
	defer tick.Stop()
	deadline := time.NewTimer(b.timeout)
	defer deadline.Stop()
	pid := cmd.Process.Pid
	v := watch(done, tick.C, deadline.C, ctx.Done(), func() (int64, error) { return r.rss(pid) }, b.memory)
	if v != verdictExited {
		_ = cmd.Process.Kill()
		<-done // killed: the wait error says only that
	}
	stderr.flush()
	switch v {
	case verdictStopped:
		return withCode(exitError, errors.New("interrupted"))
	case verdictMemory, verdictTime:
		return withCode(exitError, &budgetError{v: v, b: b})
	case verdictExited:
	}
	code := cmd.ProcessState.ExitCode()
	var ee *exec.ExitError
	if (waitErr == nil || errors.As(waitErr, &ee)) && code >= childCodeBase && code <= childCodeBase+exitHeld {
		return withCode(code-childCodeBase, nil)
	}
	cause := stderr.cause()
	if cause == "" {
		cause = cmd.ProcessState.String()
	}
	if strings.Contains(cause, "stack overflow") || strings.Contains(cause, "stack exceeds") {
		return withCode(exitError, fmt.Errorf("the render crashed (%s): a template includes or calls itself without end (the render's stack is limited to %s)", cause, fileio.FormatSize(childMaxStack)))
	}
	return withCode(exitError, fmt.Errorf("the render crashed (%s)", cause))
}

// startChild applies the child's budget, when this process is one: the
// stack limit and a soft memory limit below the memory budget. It is one
// when renderChildEnv names its parent; a value set by hand (=0, =1) is
// ignored, so that it can neither turn the budget off nor crash the run.
func startChild() (isChild bool) {
	mem, ok := childBudget(os.Getenv(renderChildEnv), os.Getppid())
	if !ok {
		return false
	}
	debug.SetMaxStack(childMaxStack)
	debug.SetMemoryLimit(softMemoryLimit(mem, debug.SetMemoryLimit(-1)))
	return true
}

// childBudget reads renderChildEnv's value, "BYTES:PID": the memory budget,
// and ok when PID is ppid, this process's parent, and the budget positive.
func childBudget(v string, ppid int) (mem int64, ok bool) {
	m, p, found := strings.Cut(v, ":")
	if !found {
		return 0, false
	}
	mem, err := strconv.ParseInt(m, 10, 64)
	if err != nil || mem <= 0 {
		return 0, false
	}
	pid, err := strconv.Atoi(p)
	if err != nil || pid != ppid {
		return 0, false
	}
	return mem, true
}

// softMemoryLimit is the Go memory limit of a child with a memory budget
// of budget bytes: three quarters of it (the binary's code and the
// runtime's own memory sit beside the heap), or the current limit (a
// GOMEMLIMIT the user set) when lower.
func softMemoryLimit(budget, current int64) int64 {
	return min(budget/4*3, current)
}

// crashFilter passes the child's standard error through line by line
// until a Go crash report starts ("panic: ", "fatal error: ", "runtime: "
// at the start of a line); it keeps the report instead, so that the parent
// prints one line.
type crashFilter struct {
	w io.Writer

	mu       sync.Mutex
	line     []byte // the start of a line not yet passed
	crashed  bool
	captured bytes.Buffer
}

var crashPrefixes = []string{"panic: ", "fatal error: ", "runtime: "}

func (f *crashFilter) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := len(p)
	for len(p) > 0 {
		if f.crashed {
			if room := crashCaptureLimit - f.captured.Len(); room > 0 {
				f.captured.Write(p[:min(room, len(p))])
			}
			return n, nil
		}
		i := bytes.IndexAny(p, "\n\r")
		if i < 0 {
			f.line = append(f.line, p...)
			return n, nil
		}
		f.line = append(f.line, p[:i+1]...)
		p = p[i+1:]
		if f.startsCrash(f.line) {
			f.crashed = true
			f.captured.Write(f.line)
		} else if _, err := f.w.Write(f.line); err != nil {
			f.line = f.line[:0]
			return n, err
		}
		f.line = f.line[:0]
	}
	return n, nil
}

func (f *crashFilter) startsCrash(line []byte) bool {
	for _, p := range crashPrefixes {
		if bytes.HasPrefix(line, []byte(p)) {
			return true
		}
	}
	return false
}

// flush passes a last line that has no newline, unless a crash report
// started.
func (f *crashFilter) flush() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.crashed && len(f.line) > 0 {
		_, _ = f.w.Write(f.line)
	}
	f.line = nil
}

// cause is the line of the crash report that says what happened
// ("fatal error: stack overflow", "panic: …", "runtime: out of memory"),
// else its first line; empty without a crash report.
func (f *crashFilter) cause() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.crashed {
		return ""
	}
	lines := strings.Split(f.captured.String(), "\n")
	for _, prefix := range []string{"fatal error: ", "panic: ", "runtime: out of memory"} {
		for _, l := range lines {
			if strings.HasPrefix(l, prefix) {
				return strings.TrimSpace(l)
			}
		}
	}
	return strings.TrimSpace(lines[0])
}
