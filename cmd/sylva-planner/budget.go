package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"

	"gitlab.com/sylva-projects/sylva-planner/fileio"
)

// The values commands run templates from their input, which may loop,
// recurse or allocate without end; Helm's engine cannot be interrupted. So
// they run in a child process of the same binary with a budget: a stack
// limit, an address-space limit (--render-memory) and a deadline
// (--render-timeout). Any crash of the child (a Go runtime fatal error
// exits 2, which is also the code for "blocked") is mapped to exit 1 with
// one line; the child reports its own exit codes shifted by childCodeBase
// so that the two cannot be confused.

const (
	// renderChildEnv marks the child and carries its memory limit in bytes.
	renderChildEnv = "SYLVA_PLANNER_RENDER_CHILD"
	// childCodeBase is added to the child's exit code.
	childCodeBase = 64
	// childMaxStack bounds the goroutine stack of the child: a template
	// that includes itself overflows it in a second, not after 1 GB.
	childMaxStack = 64 << 20

	defaultRenderTimeout = 60 * time.Second
	defaultRenderMemory  = int64(2 << 30)
)

// renderFlags are --render-timeout and --render-memory, which the parent
// reads from the arguments (renderBudget) before the child parses them.
func renderFlags() []cli.Flag {
	return []cli.Flag{
		&cli.DurationFlag{Name: "render-timeout", Usage: "stop rendering templates after `DURATION` (exit 1)", Value: defaultRenderTimeout, EnvVars: []string{"SYLVA_PLANNER_RENDER_TIMEOUT"}},
		&cli.StringFlag{Name: "render-memory", Usage: "address space `SIZE` the template render may use (bytes, or with MiB, GiB; exit 1 beyond)", Value: fileio.FormatSize(defaultRenderMemory), EnvVars: []string{"SYLVA_PLANNER_RENDER_MEMORY"}},
	}
}

// withRenderFlags adds the render budget flags to the values commands.
func withRenderFlags(cmds []*cli.Command) {
	for _, cmd := range cmds {
		if cmd.Name != "values" {
			continue
		}
		for _, sub := range cmd.Subcommands {
			if sub.Name == "render" || sub.Name == "check" {
				sub.Flags = append(sub.Flags, renderFlags()...)
			}
		}
	}
}

// commandOf is the command word of args (after the global flags).
func commandOf(args []string) string {
	for i := 1; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--max-input-size":
			i++
		case strings.HasPrefix(a, "-"):
		default:
			return a
		}
	}
	return ""
}

// flagValue is the last value of --name in args ("--name v" or
// "--name=v"), else the environment variable env.
func flagValue(args []string, name, env string) string {
	v := os.Getenv(env)
	for i, a := range args {
		switch {
		case a == "--"+name && i+1 < len(args):
			v = args[i+1]
		case strings.HasPrefix(a, "--"+name+"="):
			v = strings.TrimPrefix(a, "--"+name+"=")
		}
	}
	return v
}

// renderBudget reads the budget from args; a bad value is left to the
// child's flag parsing, which reports it.
func renderBudget(args []string) (time.Duration, int64) {
	timeout, mem := defaultRenderTimeout, defaultRenderMemory
	if d, err := time.ParseDuration(flagValue(args, "render-timeout", "SYLVA_PLANNER_RENDER_TIMEOUT")); err == nil && d > 0 {
		timeout = d
	}
	if s := flagValue(args, "render-memory", "SYLVA_PLANNER_RENDER_MEMORY"); s != "" {
		if n, err := fileio.ParseSize(s); err == nil {
			mem = n
		}
	}
	return timeout, mem
}

// startChild applies the child's budget, when this process is one.
func startChild() (isChild bool) {
	s := os.Getenv(renderChildEnv)
	if s == "" {
		return false
	}
	debug.SetMaxStack(childMaxStack)
	if n, err := strconv.ParseInt(s, 10, 64); err == nil && n > 0 {
		lim := syscall.Rlimit{Cur: uint64(n), Max: uint64(n)}
		_ = syscall.Setrlimit(syscall.RLIMIT_AS, &lim)
	}
	return true
}

// runBudgeted runs args in a child process within the render budget and
// returns the exit code; stop ends the child early (a signal).
func runBudgeted(args []string, stop <-chan struct{}) int {
	timeout, mem := renderBudget(args)
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintf(os.Stderr, "sylva-planner: cannot start the render: %v\n", err)
		return exitError
	}
	cmd := exec.Command(self, args[1:]...)
	cmd.Env = append(os.Environ(), renderChildEnv+"="+strconv.FormatInt(mem, 10))
	cmd.Stdin, cmd.Stdout = os.Stdin, os.Stdout
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "sylva-planner: cannot start the render: %v\n", err)
		return exitError
	}
	var waitErr error
	done := make(chan struct{})
	go func() { waitErr = cmd.Wait(); close(done) }()
	var why string
	select {
	case <-done:
		err = waitErr
	case <-time.After(timeout):
		_ = cmd.Process.Kill()
		<-done // killed: the wait error says only that
		why = fmt.Sprintf("the templates did not finish within --render-timeout %s: a template loops or recurses; raise --render-timeout if the values are right", timeout)
	case <-stop:
		_ = cmd.Process.Kill()
		<-done // killed: the wait error says only that
		why = "interrupted"
	}
	if why != "" {
		fmt.Fprintf(os.Stderr, "sylva-planner: %s\n", why)
		return exitError
	}
	code := cmd.ProcessState.ExitCode()
	var ee *exec.ExitError
	if (err == nil || errors.As(err, &ee)) && code >= childCodeBase && code <= childCodeBase+exitHeld {
		_, _ = os.Stderr.Write(stderr.Bytes())
		return code - childCodeBase
	}
	fmt.Fprintf(os.Stderr, "sylva-planner: the template render crashed (%s): a template recursed or allocated beyond the budget (--render-memory %s); fix the template, or raise --render-memory if the values are right\n", crashCause(stderr.String(), cmd.ProcessState.String()), fileio.FormatSize(mem))
	return exitError
}

// crashCause is the first line of a Go crash report ("fatal error: stack
// overflow", "panic: …"), else the process state.
func crashCause(stderr, state string) string {
	for _, line := range strings.Split(stderr, "\n") {
		for _, p := range []string{"fatal error: ", "panic: ", "runtime: out of memory"} {
			if strings.HasPrefix(line, p) {
				return strings.TrimSpace(line)
			}
		}
	}
	return state
}
