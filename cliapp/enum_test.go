package cliapp

import (
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

func TestEnumRefusesAnUnknownWordListingTheValidOnes(t *testing.T) {
	e := NewEnum("output format", "table", "json")
	if e.Value() != "table" {
		t.Errorf("default %q, want the first word", e.Value())
	}
	if err := e.Set("xml"); err == nil || err.Error() != `unknown output format "xml" (valid: table, json)` {
		t.Errorf("Set(xml) = %v", err)
	}
	if err := e.Set("json"); err != nil || e.Value() != "json" || !e.Allows("table") || e.Allows("xml") {
		t.Errorf("Set(json) = %v, value %q", err, e.Value())
	}
}

// run runs app with args and returns the error of its command.
func run(t *testing.T, app *cli.App, args ...string) error {
	t.Helper()
	app.ExitErrHandler = func(*cli.Context, error) {}
	return app.Run(append([]string{app.Name}, args...))
}

func TestOneStdinRefusesTwoInputsNamedDash(t *testing.T) {
	ran := false
	app := &cli.App{Name: "toy", Commands: []*cli.Command{{
		Name:   "plan",
		Flags:  []cli.Flag{&cli.StringFlag{Name: "status"}, &cli.StringFlag{Name: "catalog"}, &cli.StringSliceFlag{Name: "values", Aliases: []string{"f"}}},
		Action: func(*cli.Context) error { ran = true; return nil },
	}}}
	OneStdin(app.Commands, "-")
	if err := run(t, app, "plan", "--status", "-", "--catalog", "c.yaml"); err != nil || !ran {
		t.Errorf("one - refused: %v", err)
	}
	ran = false
	err := run(t, app, "plan", "--status", "-", "-f", "-", "--catalog", "-")
	if err == nil || ran || err.Error() != "--status, --catalog and --values all name - (standard input); only one input may be -" {
		t.Errorf("three -: ran %v, %v", ran, err)
	}
}

func TestRerunRepeatsTheFlagsGivenButTheSkippedOnes(t *testing.T) {
	var got string
	app := &cli.App{Name: "toy", HelpName: "toy", Commands: []*cli.Command{{
		Name: "plan",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "to"}, &cli.BoolFlag{Name: "live"}, &cli.StringFlag{Name: "output"},
			&cli.StringSliceFlag{Name: "f"}, &cli.StringFlag{Name: "unset"},
		},
		Action: func(c *cli.Context) error {
			got = Rerun(c, func(s string) string {
				if strings.Contains(s, " ") {
					return "'" + s + "'"
				}
				return s
			}, "output")
			return nil
		},
	}}}
	if err := run(t, app, "plan", "--to", "1.6", "--live", "--output", "json", "--f", "a b", "--f", "c"); err != nil {
		t.Fatal(err)
	}
	if want := "toy plan --to 1.6 --live --f 'a b' --f c"; got != want {
		t.Errorf("Rerun = %q, want %q", got, want)
	}
}
