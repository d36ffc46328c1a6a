package renderchild

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"time"

	"gitlab.com/sylva-projects/sylva-planner/fileio"
)

// PollInterval is how often the parent reads the child's resident memory:
// a few microseconds per read; a template allocating as fast as the
// machine allows goes at most a few hundred MB past the budget before it
// is killed.
const PollInterval = 25 * time.Millisecond

// Runner starts this binary again as a child within a budget and watches
// it.
type Runner struct {
	// Exe is this binary; err says why it is unknown.
	Exe string
	err error
	// Environ is the environment of the child, without Env.
	Environ []string
	// Poll is how often the child's resident memory is read.
	Poll time.Duration
	// RSS reads the resident memory of a process.
	RSS func(pid int) (int64, error)
}

// NewRunner is the runner of the main process: this executable, this
// process's environment, resident memory read from /proc.
func NewRunner() *Runner {
	exe, err := os.Executable()
	return &Runner{Exe: exe, err: err, Environ: os.Environ(), Poll: PollInterval, RSS: residentBytes}
}

// Command is the command line a child runs, with its streams.
type Command struct {
	// Args is the whole command line, argv[0] included (it may make the
	// binary the kubectl plugin).
	Args []string
	// Env is added to the runner's environment.
	Env []string
	// Dir is the child's working directory; empty is this process's.
	Dir            string
	Stdin          io.Reader
	Stdout, Stderr io.Writer
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

// ErrInterrupted is returned when the context ended the child.
var ErrInterrupted = errors.New("interrupted")

// Run runs c in a child within b. It returns the exit code the child's
// command reported (its messages already written), or an error of one
// line: a budget hit (*Error), a crash, ErrInterrupted, or a child that
// could not start.
func (r *Runner) Run(ctx context.Context, c Command, b Budget) (int, error) {
	if r.err != nil {
		return 0, fmt.Errorf("cannot start the render: %w", r.err)
	}
	stderr := &crashFilter{w: c.Stderr}
	env := append(append(append([]string(nil), r.Environ...), Env+"="+strconv.FormatInt(b.Memory, 10)+":"+strconv.Itoa(os.Getpid())), c.Env...)
	cmd := &exec.Cmd{
		Path:        r.Exe,
		Args:        c.Args,
		Env:         env,
		Dir:         c.Dir,
		Stdin:       c.Stdin,
		Stdout:      c.Stdout,
		Stderr:      stderr,
		SysProcAttr: sysProcAttr(),
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
		return 0, fmt.Errorf("cannot start the render: %w", err)
	}
	tick := time.NewTicker(r.Poll)
	defer tick.Stop()
	deadline := time.NewTimer(b.Timeout)
	defer deadline.Stop()
	pid := cmd.Process.Pid
	v := watch(done, tick.C, deadline.C, ctx.Done(), func() (int64, error) { return r.RSS(pid) }, b.Memory)
	if v != verdictExited {
		_ = cmd.Process.Kill()
		<-done // killed: the wait error says only that
	}
	stderr.flush()
	switch v {
	case verdictStopped:
		return 0, ErrInterrupted
	case verdictMemory, verdictTime:
		return 0, &Error{v: v, b: b}
	case verdictExited:
	}
	code := cmd.ProcessState.ExitCode()
	var ee *exec.ExitError
	if (waitErr == nil || errors.As(waitErr, &ee)) && code >= CodeBase {
		return code - CodeBase, nil
	}
	cause := stderr.cause()
	if cause == "" {
		cause = cmd.ProcessState.String()
	}
	if strings.Contains(cause, "stack overflow") || strings.Contains(cause, "stack exceeds") {
		return 0, fmt.Errorf("the render crashed (%s): a template includes or calls itself without end (the render's stack is limited to %s)", cause, fileio.FormatSize(MaxStack))
	}
	return 0, fmt.Errorf("the render crashed (%s)", cause)
}

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
