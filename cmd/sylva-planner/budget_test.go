package main

import (
	"bytes"
	"context"
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

	"gitlab.com/sylva-projects/sylva-planner/cliapp"
	"gitlab.com/sylva-projects/sylva-planner/renderchild"
)

// testMainEnv makes this test binary run main, as the sylva-planner
// binary does, for the tests that run the program as a process.
const testMainEnv = "SYLVA_PLANNER_TEST_MAIN"

// The test binary is also the budgeted child of the commands the tests
// run (cliapp.ChildRunner starts os.Executable again with renderchild.Env), and the
// main process of the tests that start one: main runs before the tests do.
func init() {
	if os.Getenv(renderchild.Env) != "" || os.Getenv(testMainEnv) != "" {
		main()
	}
}

// scriptChild runs the budgeted commands of a script in a child process,
// this test binary, as the binary does: the child gets the script's HOME,
// KUBECONFIG and output format, and the script's day as its --as-of.
func scriptChild(ts *testscript.TestScript) cliapp.BudgetRunner {
	r := cliapp.NewChildRunner(exitHeld)
	replaced := map[string]string{"HOME": ts.Getenv("HOME"), "KUBECONFIG": ts.Getenv("KUBECONFIG"), cliapp.OutputEnv: ts.Getenv(cliapp.OutputEnv), "SYLVA_PLANNER_AS_OF": scriptToday.Format(time.DateOnly)}
	r.Environ = slices.DeleteFunc(r.Environ, func(kv string) bool {
		k, _, _ := strings.Cut(kv, "=")
		_, ok := replaced[k]
		return ok || k == testMainEnv
	})
	for k, v := range replaced {
		if v != "" {
			r.Environ = append(r.Environ, k+"="+v)
		}
	}
	return r
}

// recordingRunner records the budget of the run it is asked for instead
// of starting a child.
type recordingRunner struct{ got []renderchild.Budget }

func (r *recordingRunner) Run(_ context.Context, _ *cliapp.Env, b renderchild.Budget) error {
	r.got = append(r.got, b)
	return nil
}

// TestBudgetIsDeclaredByTheCommandsThatRunTemplates runs command lines
// in-process with a runner that records whether the budget was asked for:
// every command that runs chart or user templates asks, the others run in
// the process.
func TestBudgetIsDeclaredByTheCommandsThatRunTemplates(t *testing.T) {
	defaults := renderchild.Budget{Memory: renderchild.DefaultMemory, Timeout: renderchild.DefaultTimeout}
	tests := []struct {
		name string
		args []string
		want []renderchild.Budget // nil: not budgeted
	}{
		{name: "values render", args: []string{"values", "render", "-f", "v.yaml"}, want: []renderchild.Budget{defaults}},
		{name: "values render --chart", args: []string{"values", "render", "--chart", "c", "-f", "v.yaml"}, want: []renderchild.Budget{defaults}},
		{name: "values check", args: []string{"values", "check", "--from", "1.4", "--to", "1.6"}, want: []renderchild.Budget{defaults}},
		{name: "values check --chart", args: []string{"values", "check", "--chart", "c", "--from", "1.4", "--to", "1.6"}, want: []renderchild.Budget{defaults}},
		{name: "prune-audit --chart", args: []string{"prune-audit", "-f", "v.yaml", "--chart", "c"}, want: []renderchild.Budget{defaults}},
		{name: "the budget comes from the flags", args: []string{"values", "render", "-f", "v.yaml", "--render-memory", "512MiB", "--render-timeout", "90s"}, want: []renderchild.Budget{{Memory: 512 << 20, Timeout: 90 * time.Second}}},
		{name: "the global flags go before the command", args: []string{"--max-input-size", "1MiB", "values", "check", "--from", "1.4", "--to", "1.6"}, want: []renderchild.Budget{defaults}},
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
			e.Child = r
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
			e.Child = r
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
