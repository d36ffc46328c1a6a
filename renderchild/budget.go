package renderchild

import (
	"fmt"
	"time"

	"gitlab.com/sylva-projects/sylva-planner/fileio"
)

const (
	// DefaultMemory is 4 GiB of resident memory. A render of a
	// test-values case of the real sylva-units chart peaks at 40–150 MB,
	// and at up to 1.5 GB with --validate (capo-mgmt-workers; helm
	// template of the management case: 420–650 MiB), much of it garbage
	// the soft limit has collected sooner when near the budget; a
	// template that allocates without end reaches it in seconds.
	DefaultMemory = int64(4 << 30)
	// DefaultTimeout is 10 minutes of wall time. The longest valid run
	// measured, values check --chart of a three-pass plan on a busy
	// two-core machine, took about 5 minutes; a run takes longer on a
	// loaded machine, not because of the chart. A template that recurses
	// or allocates without end is stopped by the stack or memory budget
	// long before; only a loop that does neither runs until the timeout.
	DefaultTimeout = 10 * time.Minute
	// MaxStack bounds the goroutine stack of the child: a template that
	// includes itself overflows it in a second, not after gigabytes.
	MaxStack = 64 << 20
)

// Budget is the render budget of one run.
type Budget struct {
	// Memory is the resident memory the child may use, in bytes.
	Memory int64
	// Timeout is the wall time the child may take.
	Timeout time.Duration
}

// Error is a budget hit: which budget, its value and the flag that
// raises it, in one line.
type Error struct {
	v verdict
	b Budget
}

func (e *Error) Error() string {
	if e.v == verdictMemory {
		return fmt.Sprintf("the render used more than --render-memory %s of resident memory; raise it with --render-memory", fileio.FormatSize(e.b.Memory))
	}
	return fmt.Sprintf("the render took longer than --render-timeout %s; raise it with --render-timeout", e.b.Timeout)
}
