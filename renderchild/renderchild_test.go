package renderchild

import (
	"bytes"
	"errors"
	"math"
	"os"
	"testing"
	"time"
)

func TestBudgetWatchEndsAtTheFirstLimitReached(t *testing.T) {
	const limit = 100
	tests := []struct {
		name string
		// rss are the reads of the resident memory, one per tick; a nil
		// entry is a failed read.
		rss []*int64
		// exitAfterReads: the child exits once every read was made.
		exitAfterReads bool
		exited         bool // the child has exited at the start
		deadline, stop bool
		want           verdict
	}{
		{name: "a child that exits ends the watch", exited: true, want: verdictExited},
		{name: "memory up to the budget at every tick is no hit", rss: reads(10, 50, limit), exitAfterReads: true, want: verdictExited},
		{name: "memory over the budget at a tick is a memory hit", rss: reads(10, 50, limit+1), want: verdictMemory},
		{name: "a read that fails is no hit", rss: []*int64{nil, nil}, exitAfterReads: true, want: verdictExited},
		{name: "the deadline is a time hit", deadline: true, want: verdictTime},
		{name: "a child that exited by the deadline exited", deadline: true, exited: true, want: verdictExited},
		{name: "a cancelled run stops", stop: true, want: verdictStopped},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Every event is ready before the watch starts, so the
			// outcome does not depend on timing.
			done := make(chan struct{})
			if tt.exited {
				close(done)
			}
			tick := make(chan time.Time, len(tt.rss))
			for range tt.rss {
				tick <- time.Time{}
			}
			n := 0
			rss := func() (int64, error) {
				r := tt.rss[n]
				if n++; n == len(tt.rss) && tt.exitAfterReads {
					close(done)
				}
				if r == nil {
					return 0, errors.New("no such process")
				}
				return *r, nil
			}
			deadline := make(chan time.Time, 1)
			if tt.deadline {
				deadline <- time.Time{}
			}
			stop := make(chan struct{})
			if tt.stop {
				close(stop)
			}
			if got := watch(done, tick, deadline, stop, rss, limit); got != tt.want {
				t.Errorf("verdict %d, want %d", got, tt.want)
			}
			if n != len(tt.rss) && tt.want != verdictExited {
				t.Errorf("%d reads, want %d", n, len(tt.rss))
			}
		})
	}
}

func reads(ns ...int64) []*int64 {
	out := make([]*int64, len(ns))
	for i := range ns {
		out[i] = &ns[i]
	}
	return out
}

func TestBudgetErrorNamesTheBudgetItsValueAndTheFlag(t *testing.T) {
	b := Budget{Memory: 4 << 30, Timeout: 2 * time.Minute}
	tests := []struct {
		name string
		v    verdict
		want string
	}{
		{name: "memory", v: verdictMemory, want: "the render used more than --render-memory 4 GiB of resident memory; raise it with --render-memory"},
		{name: "time", v: verdictTime, want: "the render took longer than --render-timeout 2m0s; raise it with --render-timeout"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := (&Error{v: tt.v, b: b}).Error(); got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestBudgetSoftMemoryLimitIsBelowTheBudget(t *testing.T) {
	tests := []struct {
		name            string
		budget, current int64
		want            int64
	}{
		{name: "three quarters of the budget without GOMEMLIMIT", budget: 4 << 30, current: math.MaxInt64, want: 3 << 30},
		{name: "a lower GOMEMLIMIT is kept", budget: 4 << 30, current: 1 << 30, want: 1 << 30},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := softMemoryLimit(tt.budget, tt.current); got != tt.want {
				t.Errorf("got %d, want %d", got, tt.want)
			}
		})
	}
}

func TestBudgetParseStatmReadsTheResidentPages(t *testing.T) {
	got, err := parseStatm([]byte("524288 2500 900 300 0 4000 0\n"), 4096)
	if err != nil || got != 2500*4096 {
		t.Errorf("got %d, %v; want %d", got, err, 2500*4096)
	}
	for _, bad := range []string{"", "12", "12 x 3"} {
		if _, err := parseStatm([]byte(bad), 4096); err == nil {
			t.Errorf("statm %q: no error", bad)
		}
	}
}

func TestBudgetResidentBytesOfThisProcess(t *testing.T) {
	if _, err := os.Stat("/proc/self/statm"); err != nil {
		t.Skip("no /proc")
	}
	n, err := residentBytes(os.Getpid())
	if err != nil || n < 1<<20 {
		t.Errorf("got %d, %v; want at least 1 MiB", n, err)
	}
}

func TestBudgetCrashFilterPassesOutputAndKeepsTheCrashReport(t *testing.T) {
	var out bytes.Buffer
	f := &crashFilter{w: &out}
	for _, chunk := range []string{"warning: a", " warning\nscenario 1 of 2\r", "runtime: goroutine stack exceeds 67108864-byte limit\n", "runtime: sp=0x1\nfatal error: stack overflow\n\ngoroutine 1 [running]:\n"} {
		if _, err := f.Write([]byte(chunk)); err != nil {
			t.Fatal(err)
		}
	}
	f.flush()
	if got, want := out.String(), "warning: a warning\nscenario 1 of 2\r"; got != want {
		t.Errorf("passed %q, want %q", got, want)
	}
	if got, want := f.cause(), "fatal error: stack overflow"; got != want {
		t.Errorf("cause %q, want %q", got, want)
	}

	out.Reset()
	f = &crashFilter{w: &out}
	_, _ = f.Write([]byte("sylva-planner: an error\nno newline"))
	f.flush()
	if got, want := out.String(), "sylva-planner: an error\nno newline"; got != want || f.cause() != "" {
		t.Errorf("passed %q, cause %q; want %q and no cause", got, f.cause(), want)
	}
}

func TestChildBudgetNeedsItsParentsPID(t *testing.T) {
	for _, tt := range []struct {
		v    string
		mem  int64
		want bool
	}{
		{"4294967296:42", 4294967296, true},
		{"4294967296:43", 0, false}, // another process's child
		{"0", 0, false},             // set by hand: the budget stays on
		{"1", 0, false},
		{"0:42", 0, false},
		{"-1:42", 0, false},
		{"x:42", 0, false},
		{"", 0, false},
	} {
		mem, ok := childBudget(tt.v, 42)
		if ok != tt.want || mem != tt.mem {
			t.Errorf("childBudget(%q, 42) = %d, %v; want %d, %v", tt.v, mem, ok, tt.mem, tt.want)
		}
	}
}
