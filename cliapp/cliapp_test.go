package cliapp

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

// toyApp has a command with a valued flag, a boolean flag, and a group.
func toyApp() *cli.App {
	return &cli.App{
		Name:  "toy",
		Flags: []cli.Flag{&cli.StringFlag{Name: "max-input-size"}},
		Commands: []*cli.Command{
			{Name: "plan", Flags: []cli.Flag{
				&cli.StringFlag{Name: "output", Aliases: []string{"o"}},
				&cli.StringFlag{Name: "status", TakesFile: true},
				&cli.BoolFlag{Name: "live"},
			}},
			{Name: "catalog", Subcommands: []*cli.Command{{Name: "show", Flags: []cli.Flag{&cli.StringFlag{Name: "output", Aliases: []string{"o"}}}}}},
		},
	}
}

func TestNormalizeArgsPutsFlagsBeforeArguments(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"toy", "catalog", "show", "1.6", "-o", "json"}, "toy catalog show -o json 1.6"},
		{[]string{"toy", "plan", "-oyaml"}, "toy plan -o yaml"},
		{[]string{"toy", "help", "plan"}, "toy plan --help"},
		{[]string{"toy", "plan", "--live", "--max-input-size", "1MiB"}, "toy --max-input-size 1MiB plan --live"},
		{[]string{"toy", "plan", "--", "-x"}, "toy plan -- -x"},
	}
	for _, tt := range tests {
		got, err := NormalizeArgs(toyApp(), tt.args)
		if err != nil || strings.Join(got, " ") != tt.want {
			t.Errorf("NormalizeArgs(%q) = %q, %v; want %q", tt.args, got, err, tt.want)
		}
	}
}

func TestNormalizeArgsNamesTheClosestCommand(t *testing.T) {
	for args, want := range map[string]string{
		"toy plna":         `unknown command "plna" for "toy"; did you mean "plan"?`,
		"toy catalog shwo": `unknown command "shwo" for "toy catalog"; did you mean "catalog show"?`,
		"toy zzzzzz":       `unknown command "zzzzzz" for "toy"` + "\nrun 'toy --help'",
	} {
		_, err := NormalizeArgs(toyApp(), strings.Fields(args))
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("NormalizeArgs(%q) = %v, want %q", args, err, want)
		}
	}
}

func TestCompleterAnswersFlagsChoicesAndTheApplicationsValues(t *testing.T) {
	c := Completer{
		FlagValues: func(name string) ([]string, bool) {
			if name == "output" {
				return []string{"json", "yaml", "table"}, true
			}
			return nil, false
		},
		Args: func(*cli.Command) []string { return []string{"1.5", "1.6"} },
	}
	tests := []struct {
		words []string
		cur   string
		want  string
	}{
		{nil, "pl", "plan\n:4\n"},
		{[]string{"plan"}, "--st", "--status\n:4\n"},
		{[]string{"plan", "-o"}, "j", "json\n:4\n"},
		{[]string{"plan"}, "--output=y", "--output=yaml\n:4\n"},
		{[]string{"plan", "--status"}, "", ":0\n"},
		{[]string{"catalog", "show"}, "1.", "1.5\n1.6\n:4\n"},
	}
	for _, tt := range tests {
		var out bytes.Buffer
		c.Write(&out, toyApp(), tt.words, tt.cur)
		if out.String() != tt.want {
			t.Errorf("complete %q %q = %q, want %q", tt.words, tt.cur, out.String(), tt.want)
		}
	}
}

func TestRequestReadsTheFlagAndThePluginName(t *testing.T) {
	words, cur, ok := Request([]string{"toy", "plan", "--fr", Flag})
	if !ok || !slices.Equal(words, []string{"plan"}) || cur != "--fr" {
		t.Errorf("Request = %q, %q, %v", words, cur, ok)
	}
	words, cur, ok = Request([]string{"/usr/bin/" + PluginBinary, "plan", ""})
	if !ok || !slices.Equal(words, []string{"plan"}) || cur != "" {
		t.Errorf("plugin Request = %q, %q, %v", words, cur, ok)
	}
	if _, _, ok := Request([]string{"toy", "plan"}); ok {
		t.Error("a command line without the flag is no request")
	}
}
