package renderchild

import (
	"os"
	"runtime/debug"
	"strconv"
	"strings"
)

const (
	// Env marks the child and carries its memory budget in bytes and its
	// parent's process ID ("BYTES:PID"): a value that does not name this
	// process's parent (one set by hand) marks nothing.
	Env = "SYLVA_PLANNER_RENDER_CHILD"
	// CodeBase is added to the child's exit code (Exit).
	CodeBase = 64
)

// Start applies the child's budget, when this process is one: the stack
// limit and a soft memory limit below the memory budget. env is the value
// of the environment variable Env; the process is a child when it names
// its parent. A value set by hand (=0, =1) is ignored, so that it can
// neither turn the budget off nor crash the run.
func Start(env string) (isChild bool) {
	mem, ok := childBudget(env, os.Getppid())
	if !ok {
		return false
	}
	debug.SetMaxStack(MaxStack)
	debug.SetMemoryLimit(softMemoryLimit(mem, debug.SetMemoryLimit(-1)))
	return true
}

// Exit is the exit code with which a child reports code to its parent.
func Exit(code int) int { return CodeBase + code }

// childBudget reads Env's value, "BYTES:PID": the memory budget, and ok
// when PID is ppid, this process's parent, and the budget positive.
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
