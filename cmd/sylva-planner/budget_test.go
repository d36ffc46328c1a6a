package main

import (
	"bytes"
	"context"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/urfave/cli/v2"
)

// testMainEnv makes this test binary run main, as the sylva-planner
// binary does, for the tests that run the program as a process.
const testMainEnv = "SYLVA_PLANNER_TEST_MAIN"

// The test binary is also the budgeted child of the commands the tests
// run (childRunner starts os.Executable again with renderChildEnv), and the
// main process of the tests that start one: main runs before the tests do.
func init() {
	if os.Getenv(renderChildEnv) != "" || os.Getenv(testMainEnv) != "" {
		main()
	}
}

// scriptChild runs the budgeted commands of a script in a child process,
// this test binary, as the binary does: the child gets the script's HOME,
// KUBECONFIG and output format, and the script's day as its --as-of.
func scriptChild(ts *testscript.TestScript) budgetRunner {
	r := newChildRunner()
	replaced := map[string]string{"HOME": ts.Getenv("HOME"), "KUBECONFIG": ts.Getenv("KUBECONFIG"), outputEnv: ts.Getenv(outputEnv), "SYLVA_PLANNER_AS_OF": scriptToday.Format(time.DateOnly)}
	r.environ = slices.DeleteFunc(r.environ, func(kv string) bool {
		k, _, _ := strings.Cut(kv, "=")
		_, ok := replaced[k]
		return ok || k == testMainEnv
	})
	for k, v := range replaced {
		if v != "" {
			r.environ = append(r.environ, k+"="+v)
		}
	}
	return r
}

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
	b := budget{memory: 4 << 30, timeout: 2 * time.Minute}
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
			if got := (&budgetError{v: tt.v, b: b}).Error(); got != tt.want {
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

// recordingRunner records the budget of the run it is asked for instead
// of starting a child.
type recordingRunner struct{ got []budget }

func (r *recordingRunner) run(_ context.Context, _ *env, b budget) error {
	r.got = append(r.got, b)
	return nil
}

// TestBudgetIsDeclaredByTheCommandsThatRunTemplates runs command lines
// in-process with a runner that records whether the budget was asked for:
// every command that runs chart or user templates asks, the others run in
// the process.
func TestBudgetIsDeclaredByTheCommandsThatRunTemplates(t *testing.T) {
	defaults := budget{memory: defaultRenderMemory, timeout: defaultRenderTimeout}
	tests := []struct {
		name string
		args []string
		want []budget // nil: not budgeted
	}{
		{name: "values render", args: []string{"values", "render", "-f", "v.yaml"}, want: []budget{defaults}},
		{name: "values render --chart", args: []string{"values", "render", "--chart", "c", "-f", "v.yaml"}, want: []budget{defaults}},
		{name: "values check", args: []string{"values", "check", "--from", "1.4", "--to", "1.6"}, want: []budget{defaults}},
		{name: "values check --chart", args: []string{"values", "check", "--chart", "c", "--from", "1.4", "--to", "1.6"}, want: []budget{defaults}},
		{name: "prune-audit --chart", args: []string{"prune-audit", "-f", "v.yaml", "--chart", "c"}, want: []budget{defaults}},
		{name: "the budget comes from the flags", args: []string{"values", "render", "-f", "v.yaml", "--render-memory", "512MiB", "--render-timeout", "90s"}, want: []budget{{memory: 512 << 20, timeout: 90 * time.Second}}},
		{name: "the global flags go before the command", args: []string{"--max-input-size", "1MiB", "values", "check", "--from", "1.4", "--to", "1.6"}, want: []budget{defaults}},
		{name: "prune-audit without --chart renders no template", args: []string{"prune-audit", "-f", "v.yaml"}},
		{name: "values generate renders no template", args: []string{"values", "generate", "--from", "1.4", "--to", "1.6"}},
		{name: "values generate --chart reads the chart's values only", args: []string{"values", "generate", "--from", "1.4", "--to", "1.6", "--chart", "c"}},
		{name: "plan renders no template", args: []string{"plan", "--from", "1.4", "--to", "1.6"}},
		{name: "help runs no command", args: []string{"values", "render", "--help"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &recordingRunner{}
			var out, errOut bytes.Buffer
			e := newEnv(t.TempDir(), &out, &errOut, func(string) string { return "" })
			e.child = r
			runEnv(context.Background(), e, append([]string{"sylva-planner"}, tt.args...))
			if !slices.Equal(r.got, tt.want) {
				t.Errorf("budgets %v, want %v (stderr %q)", r.got, tt.want, errOut.String())
			}
		})
	}
}

// TestBudgetFlagsAreCarriedByTheBudgetedCommandsOnly lists the commands
// with the render flags: the ones that declare the budget.
func TestBudgetFlagsAreCarriedByTheBudgetedCommandsOnly(t *testing.T) {
	var got []string
	var walk func(prefix string, cmds []*cli.Command)
	walk = func(prefix string, cmds []*cli.Command) {
		for _, c := range cmds {
			name := strings.TrimSpace(prefix + " " + c.Name)
			for _, f := range c.Flags {
				if slices.Contains(f.Names(), "render-memory") && slices.ContainsFunc(c.Flags, func(f cli.Flag) bool { return slices.Contains(f.Names(), "render-timeout") }) {
					got = append(got, name)
				}
			}
			walk(name, c.Subcommands)
		}
	}
	walk("", newApp(&bytes.Buffer{}, &bytes.Buffer{}).Commands)
	if want := []string{"prune-audit", "values render", "values check"}; !slices.Equal(got, want) {
		t.Errorf("commands with the render flags: %v, want %v", got, want)
	}
}

func TestBudgetBadFlagValuesAreOneLine(t *testing.T) {
	for _, tt := range []struct{ flag, value, want string }{
		{"--render-memory", "lots", "--render-memory: "},
		{"--render-memory", "0", "--render-memory: size \"0\": give a positive number"},
		{"--render-timeout", "0s", "--render-timeout 0s: give a positive duration"},
	} {
		t.Run(tt.flag+" "+tt.value, func(t *testing.T) {
			r := &recordingRunner{}
			var out, errOut bytes.Buffer
			e := newEnv(t.TempDir(), &out, &errOut, func(string) string { return "" })
			e.child = r
			code := runEnv(context.Background(), e, []string{"sylva-planner", "values", "render", "-f", "v.yaml", tt.flag, tt.value})
			if code != exitError || len(r.got) > 0 || strings.Count(errOut.String(), "\n") != 1 || !strings.Contains(errOut.String(), tt.want) {
				t.Errorf("exit %d, budgets %v, stderr %q; want 1, none, one line with %q", code, r.got, errOut.String(), tt.want)
			}
		})
	}
}

// loopTemplate is a values file whose template loops for hours without
// recursing or allocating: only the timeout or a signal ends it.
const loopTemplate = "z: \"{{ range until 100000 }}{{ range until 100000 }}{{ end }}{{ end }}\"\n"

// startRender starts this test binary as the sylva-planner main process
// rendering a template that loops, and returns it once its budgeted child
// runs, with the child's pid.
func startRender(t *testing.T) (parent *exec.Cmd, exited <-chan struct{}, stderr *bytes.Buffer, child int) {
	t.Helper()
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("finds the child in /proc")
	}
	loop := filepath.Join(t.TempDir(), "loop.yaml")
	if err := os.WriteFile(loop, []byte(loopTemplate), 0o644); err != nil {
		t.Fatal(err)
	}
	stderr = &bytes.Buffer{}
	parent = exec.Command(testBinary(t), "values", "render", "-f", loop, "--render-timeout", "1h")
	parent.Env = append(os.Environ(), testMainEnv+"=1")
	parent.Stderr = stderr
	if err := parent.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = parent.Wait(); close(done) }()
	t.Cleanup(func() { _ = parent.Process.Kill(); <-done })
	// Hang guards only, here and below: the child starts and dies in
	// milliseconds.
	for start := time.Now(); child == 0; time.Sleep(10 * time.Millisecond) {
		if time.Since(start) > time.Minute {
			t.Fatalf("the parent started no child; stderr %q", stderr.String())
		}
		child = childOf(parent.Process.Pid)
	}
	return parent, done, stderr, child
}

// waitGone waits until pid no longer runs.
func waitGone(t *testing.T, pid int) {
	t.Helper()
	for start := time.Now(); alive(pid); time.Sleep(10 * time.Millisecond) {
		if time.Since(start) > time.Minute {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("child %d still runs a minute after its parent ended", pid)
		}
	}
}

// TestBudgetChildDiesWithItsParent kills the main process with SIGKILL
// while its budgeted child renders a template that loops: the child dies
// too, instead of burning CPU until its timeout.
func TestBudgetChildDiesWithItsParent(t *testing.T) {
	parent, exited, _, child := startRender(t)
	if err := parent.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-exited
	waitGone(t, child)
}

// TestBudgetSIGTERMStopsTheRender: a SIGTERM to the main process during a
// budgeted render kills the child and exits 1, "interrupted", on one line.
func TestBudgetSIGTERMStopsTheRender(t *testing.T) {
	parent, exited, stderr, child := startRender(t)
	if err := parent.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	<-exited
	waitGone(t, child)
	if code := parent.ProcessState.ExitCode(); code != exitError || stderr.String() != "sylva-planner: interrupted\n" {
		t.Errorf("exit %d, stderr %q; want 1, interrupted", code, stderr.String())
	}
}

// childOf is a child process of pid, or 0.
func childOf(pid int) int {
	dirs, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, d := range dirs {
		if ppid, _, ok := procStat(d); ok && ppid == pid {
			n, _ := strconv.Atoi(filepath.Base(filepath.Dir(d)))
			return n
		}
	}
	return 0
}

// alive says whether pid runs (a zombie waiting to be reaped does not).
func alive(pid int) bool {
	_, state, ok := procStat("/proc/" + strconv.Itoa(pid) + "/stat")
	return ok && state != "Z" && state != "X"
}

// procStat reads the parent pid and the state of a /proc/PID/stat file.
func procStat(path string) (ppid int, state string, ok bool) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, "", false
	}
	// pid (comm) state ppid …; comm may hold spaces and parentheses.
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return 0, "", false
	}
	f := strings.Fields(string(data[i+1:]))
	if len(f) < 2 {
		return 0, "", false
	}
	ppid, err = strconv.Atoi(f[1])
	return ppid, f[0], err == nil
}

// panickingWriter panics on write, standing for any bug in a command.
type panickingWriter struct{}

func (panickingWriter) Write([]byte) (int, error) { panic("a bug\nover two lines") }

func TestAPanicIsAnOperationalErrorNotAGateCode(t *testing.T) {
	var errOut bytes.Buffer
	code := runIn(t.Context(), "", []string{"sylva-planner", "version"}, panickingWriter{}, &errOut, func(string) string { return "" })
	if code != exitError || strings.Count(errOut.String(), "\n") != 1 || !strings.Contains(errOut.String(), "internal error: a bug over two lines") {
		t.Errorf("exit %d, stderr %q; want 1 and one line", code, errOut.String())
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
