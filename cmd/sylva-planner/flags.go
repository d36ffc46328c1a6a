package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/urfave/cli/v2"
)

// format is an output format chosen with -o.
type format string

const (
	formatTable    format = "table"
	formatJSON     format = "json"
	formatYAML     format = "yaml"
	formatMarkdown format = "markdown"
	formatHTML     format = "html"
)

// formatValue is a cli.Generic that accepts only the formats it was built
// with and lists them when refusing a value.
type formatValue struct {
	allowed []format
	value   format
}

func (f *formatValue) Set(s string) error {
	for _, a := range f.allowed {
		if string(a) == s {
			f.value = a
			return nil
		}
	}
	names := make([]string, len(f.allowed))
	for i, a := range f.allowed {
		names[i] = string(a)
	}
	return fmt.Errorf("unknown output format %q (valid: %s)", s, strings.Join(names, ", "))
}

func (f *formatValue) String() string { return string(f.value) }

// outputFlag is -o/--output with the given formats, the first one default.
func outputFlag(allowed ...format) *cli.GenericFlag {
	names := make([]string, len(allowed))
	for i, a := range allowed {
		names[i] = string(a)
	}
	return &cli.GenericFlag{
		Name:    "output",
		Aliases: []string{"o"},
		Usage:   "output format: " + strings.Join(names, ", "),
		Value:   &formatValue{allowed: allowed, value: allowed[0]},
		EnvVars: []string{"SYLVA_PLANNER_OUTPUT"},
	}
}

func outputOf(c *cli.Context) format { return c.Generic("output").(*formatValue).value }

// failOn is the --fail-on threshold.
type failOn string

const (
	failOnBlocker failOn = "blocker"
	failOnWarning failOn = "warning"
	failOnNever   failOn = "never"
)

type failOnValue struct{ value failOn }

func (f *failOnValue) Set(s string) error {
	switch v := failOn(s); v {
	case failOnBlocker, failOnWarning, failOnNever:
		f.value = v
		return nil
	}
	return fmt.Errorf("unknown --fail-on value %q (valid: blocker, warning, never)", s)
}

func (f *failOnValue) String() string { return string(f.value) }

func failOnFlag() *cli.GenericFlag {
	return &cli.GenericFlag{
		Name:    "fail-on",
		Usage:   "lowest finding severity that makes the exit code non-zero: blocker, warning, never",
		Value:   &failOnValue{value: failOnBlocker},
		EnvVars: []string{"SYLVA_PLANNER_FAIL_ON"},
	}
}

func failOnOf(c *cli.Context) failOn { return c.Generic("fail-on").(*failOnValue).value }

func asOfFlag() *cli.StringFlag {
	return &cli.StringFlag{
		Name:    "as-of",
		Usage:   "`DATE` (YYYY-MM-DD) the plan is computed for (default: today, UTC); same inputs and date give the same bytes",
		EnvVars: []string{"SYLVA_PLANNER_AS_OF"},
	}
}

// asOfOf returns --as-of, or today.
func asOfOf(c *cli.Context) (time.Time, error) {
	s := c.String("as-of")
	if s == "" {
		return envOf(c).today, nil
	}
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("--as-of %q is not a date; use YYYY-MM-DD, for example --as-of 2026-11-30", s)
	}
	return t, nil
}

func catalogFlag() *cli.StringFlag {
	return &cli.StringFlag{
		Name:      "catalog",
		Usage:     "load the release catalog from `FILE` (or a directory of *.yaml) instead of the embedded one",
		EnvVars:   []string{"SYLVA_PLANNER_CATALOG"},
		TakesFile: true,
	}
}
