package cliapp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/urfave/cli/v2"
)

// runToy runs a one-command application whose action is action, and
// returns the exit code and stderr.
func runToy(t *testing.T, ctx context.Context, action cli.ActionFunc, args ...string) (int, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	app := &cli.App{
		Name:           "toy",
		Writer:         &out,
		ErrWriter:      &errOut,
		ExitErrHandler: func(*cli.Context, error) {},
		Commands:       []*cli.Command{{Name: "go", ArgsUsage: " ", Action: action}},
	}
	Conventions(app)
	e := NewEnv(t.TempDir(), &out, &errOut, func(string) string { return "" }, func() time.Time { return time.Unix(0, 0) })
	code := Run(ctx, e, app, append([]string{"toy", "go"}, args...), Completer{})
	return code, errOut.String()
}

// TestRunExitCodes: an error exits with the code it carries (WithCode),
// else 1, whatever the errors it wraps say of their own exit; the message
// is one line naming the application.
func TestRunExitCodes(t *testing.T) {
	exitErr := exec.Command("false").Run()
	var ee *exec.ExitError
	if !errors.As(exitErr, &ee) || ee.ExitCode() != 1 {
		t.Skipf("false did not exit 1: %v", exitErr)
	}
	exit3 := exec.Command("sh", "-c", "exit 3").Run()
	tests := []struct {
		name string
		err  error
		code int
		msg  string
	}{
		{"no error", nil, ExitOK, ""},
		{"an error", errors.New("bad input"), ExitError, "toy: bad input\n"},
		{"a code of its own", WithCode(4, errors.New("held")), 4, "toy: held\n"},
		{"a silent code", WithCode(2, nil), 2, ""},
		{"another program's exit is not ours", fmt.Errorf("git: %w", exit3), ExitError, "toy: git: exit status 3\n"},
		{"the outermost code wins", WithCode(ExitError, WithCode(2, errors.New("x"))), ExitError, "toy: x\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stderr := runToy(t, context.Background(), func(*cli.Context) error { return tt.err })
			if code != tt.code || stderr != tt.msg {
				t.Errorf("exit %d, stderr %q; want %d, %q", code, stderr, tt.code, tt.msg)
			}
		})
	}
}

// TestRunPanicAndInterrupt: a panic is an internal error on one line, exit
// 1; an error after a cancellation (a signal) is "interrupted", exit 1.
func TestRunPanicAndInterrupt(t *testing.T) {
	code, stderr := runToy(t, context.Background(), func(*cli.Context) error { panic("boom\nat line 2") })
	if code != ExitError || stderr != "toy: internal error: boom at line 2\n" {
		t.Errorf("panic: exit %d, stderr %q", code, stderr)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	code, stderr = runToy(t, ctx, func(c *cli.Context) error { return c.Err() })
	if code != ExitError || stderr != "toy: interrupted\n" {
		t.Errorf("interrupted: exit %d, stderr %q", code, stderr)
	}
}

// TestConventionsReadTheGlobalLimits: --max-input-size sets the limit of
// every read; a bad size is one line, exit 1, before the command runs.
func TestConventionsReadTheGlobalLimits(t *testing.T) {
	var got int64
	ran := false
	action := func(c *cli.Context) error { got, ran = EnvOf(c).MaxInput, true; return nil }
	var out, errOut bytes.Buffer
	app := &cli.App{Name: "toy", Writer: &out, ErrWriter: &errOut, ExitErrHandler: func(*cli.Context, error) {}, Commands: []*cli.Command{{Name: "go", Action: action}}}
	Conventions(app)
	e := NewEnv("", &out, &errOut, func(string) string { return "" }, time.Now)
	if code := Run(context.Background(), e, app, []string{"toy", "--max-input-size", "1KiB", "go"}, Completer{}); code != 0 || got != 1024 {
		t.Errorf("exit %d, limit %d; want 0, 1024", code, got)
	}
	ran = false
	errOut.Reset()
	code := Run(context.Background(), e, app, []string{"toy", "--max-input-size", "lots", "go"}, Completer{})
	if code != ExitError || ran || strings.Count(errOut.String(), "\n") != 1 || !strings.HasPrefix(errOut.String(), "toy: --max-input-size: ") {
		t.Errorf("bad size: exit %d, ran %v, stderr %q", code, ran, errOut.String())
	}
}

// TestEnvReadsStandardInputOnce: standard input is read once; a second
// read gives the same bytes, and a read error names the flag and "-".
func TestEnvReadsStandardInputOnce(t *testing.T) {
	e := NewEnv("", &bytes.Buffer{}, &bytes.Buffer{}, func(string) string { return "" }, time.Now)
	e.Stdin = strings.NewReader("catalog")
	for range 2 {
		if data, err := e.ReadFile("--catalog", "-"); err != nil || string(data) != "catalog" {
			t.Fatalf("read %q, %v", data, err)
		}
	}
	if _, err := e.ReadFile("--status", "missing.yaml"); err == nil || !strings.HasPrefix(err.Error(), "--status: ") {
		t.Errorf("missing file: %v", err)
	}
}

// TestNoArgs: a command that declares no argument refuses one before its
// action runs, naming itself (with its group) and the argument, exit 1;
// a group whose subcommand is named does not see the subcommand as its
// argument.
func TestNoArgs(t *testing.T) {
	var ran []string
	action := func(name string) cli.ActionFunc {
		return func(*cli.Context) error { ran = append(ran, name); return nil }
	}
	var errOut bytes.Buffer
	newApp := func() *cli.App {
		app := &cli.App{
			Name: "toy", Writer: &bytes.Buffer{}, ErrWriter: &errOut, ExitErrHandler: func(*cli.Context, error) {}, HideHelpCommand: true,
			Commands: []*cli.Command{
				{Name: "plain", ArgsUsage: " ", Action: action("plain")},
				{Name: "one", ArgsUsage: "THING", Action: action("one")},
				{Name: "group", ArgsUsage: " ", Action: action("group"), Subcommands: []*cli.Command{
					{Name: "sub", ArgsUsage: " ", Action: action("sub")},
				}},
			},
		}
		Conventions(app)
		return app
	}
	tests := []struct {
		args []string
		code int
		msg  string
		ran  string
	}{
		{[]string{"plain"}, ExitOK, "", "plain"},
		{[]string{"plain", "x"}, ExitError, "toy: plain takes no argument, got \"x\"; its inputs are flags\nrun 'toy plain --help'\n", ""},
		{[]string{"one", "x"}, ExitOK, "", "one"},
		{[]string{"group", "sub"}, ExitOK, "", "sub"},
		{[]string{"group", "sub", "x"}, ExitError, "toy: group sub takes no argument, got \"x\"; its inputs are flags\nrun 'toy group sub --help'\n", ""},
		{[]string{"group"}, ExitOK, "", "group"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			ran, errOut = nil, bytes.Buffer{}
			app := newApp() // an App runs once
			e := NewEnv(t.TempDir(), app.Writer, &errOut, func(string) string { return "" }, func() time.Time { return time.Unix(0, 0) })
			code := Run(context.Background(), e, app, append([]string{"toy"}, tt.args...), Completer{})
			if code != tt.code || errOut.String() != tt.msg || strings.Join(ran, ",") != tt.ran {
				t.Errorf("exit %d, stderr %q, ran %q; want %d, %q, %q", code, errOut.String(), ran, tt.code, tt.msg, tt.ran)
			}
		})
	}
}

// missingFlag is a CommandUsageError as an action returns it: it knows
// the flag and the example's flags, not the command.
type missingFlag struct{}

func (missingFlag) Error() string { return missingFlag{}.UsageMessage("") }

func (missingFlag) UsageMessage(command string) string {
	return "--from is required, for example: " + strings.TrimSpace(command+" --from 1.4")
}

// TestCommandUsage: an action's CommandUsageError, wrapped or not, is a
// usage error of the command run: its example names that command (with
// its group, as the kubectl plugin when run as one), then the help to
// read, exit 1. Other errors are left as they are.
func TestCommandUsage(t *testing.T) {
	var errOut bytes.Buffer
	newApp := func(err error) *cli.App {
		fail := func(*cli.Context) error { return err }
		app := &cli.App{
			Name: "toy", Writer: &bytes.Buffer{}, ErrWriter: &errOut, ExitErrHandler: func(*cli.Context, error) {}, HideHelpCommand: true,
			Commands: []*cli.Command{
				{Name: "plain", ArgsUsage: " ", Action: fail},
				{Name: "group", ArgsUsage: " ", Action: fail, Subcommands: []*cli.Command{
					{Name: "sub", ArgsUsage: " ", Action: fail},
				}},
			},
		}
		Conventions(app)
		return app
	}
	tests := []struct {
		argv0 string
		args  []string
		err   error
		msg   string
	}{
		{"toy", []string{"plain"}, missingFlag{}, "toy: --from is required, for example: toy plain --from 1.4\nrun 'toy plain --help'\n"},
		{"toy", []string{"group", "sub"}, fmt.Errorf("read: %w", missingFlag{}), "toy: --from is required, for example: toy group sub --from 1.4\nrun 'toy group sub --help'\n"},
		{"toy", []string{"group"}, missingFlag{}, "toy: --from is required, for example: toy group --from 1.4\nrun 'toy group --help'\n"},
		{PluginName, []string{"group", "sub"}, missingFlag{}, "toy: --from is required, for example: kubectl sylva-planner group sub --from 1.4\nrun 'kubectl sylva-planner group sub --help'\n"},
		{"toy", []string{"plain"}, errors.New("bad input"), "toy: bad input\n"},
	}
	for _, tt := range tests {
		t.Run(tt.argv0+" "+strings.Join(tt.args, " "), func(t *testing.T) {
			errOut = bytes.Buffer{}
			app := newApp(tt.err)
			e := NewEnv(t.TempDir(), app.Writer, &errOut, func(string) string { return "" }, func() time.Time { return time.Unix(0, 0) })
			code := Run(context.Background(), e, app, append([]string{tt.argv0}, tt.args...), Completer{})
			if code != ExitError || errOut.String() != tt.msg {
				t.Errorf("exit %d, stderr %q; want %d, %q", code, errOut.String(), ExitError, tt.msg)
			}
		})
	}
}
