package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
	"sigs.k8s.io/yaml"

	"gitlab.com/sylva-projects/sylva-planner/cliapp"
	"gitlab.com/sylva-projects/sylva-planner/envelope"
)

var updateScripts = flag.Bool("update", false, "rewrite the expected output in testdata/script/*.txtar")

// scriptToday is the day the scripts run on: commands without --as-of
// write it as the asOf of their documents.
var scriptToday = time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)

// TestScripts runs the txtar scripts of testdata/script with scriptCmds.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:           "testdata/script",
		UpdateScripts: *updateScripts,
		Cmds:          scriptCmds(),
	})
}

// scriptCmds are the commands of the scripts: `sylva-planner` runs the
// real application in-process, in the script's current directory (cd), on
// scriptToday (the commands that declare the
// render budget in a child process, as the binary does); `feed FILE` gives FILE as
// standard input to the next sylva-planner command; `exitcode N` asserts
// the exit code of the last sylva-planner command; `envelope KIND` checks
// that the last standard output is one JSON or YAML document of that kind
// with the metadata every document carries (put it after the other checks
// of that output: like every command, it replaces stdout); `mkfifo PATH`
// makes a named pipe; `stubapi` serves objects as an API server would
// (stubapi_test.go); `kubectl-sylva_planner` runs the application as the
// kubectl plugin.
func scriptCmds() map[string]func(ts *testscript.TestScript, neg bool, args []string) {
	return map[string]func(ts *testscript.TestScript, neg bool, args []string){
		"sylva-planner": func(ts *testscript.TestScript, neg bool, args []string) {
			e := newEnv(ts.MkAbs("."), ts.Stdout(), ts.Stderr(), ts.Getenv)
			e.Today = scriptToday
			e.Child = scriptChild(ts) // the budgeted commands run in a child process, as in the binary
			if in := ts.Getenv("FEED"); in != "" {
				e.Stdin = strings.NewReader(ts.ReadFile(in))
				ts.Setenv("FEED", "")
			}
			code := runEnv(context.Background(), e, append([]string{"sylva-planner"}, args...))
			ts.Setenv("LAST_EXIT", strconv.Itoa(code))
			if code != 0 && !neg {
				ts.Fatalf("sylva-planner exited %d", code)
			}
			if code == 0 && neg {
				ts.Fatalf("sylva-planner succeeded unexpectedly")
			}
		},
		"stubapi": stubAPI,
		"kubectl-sylva_planner": func(ts *testscript.TestScript, neg bool, args []string) {
			// The binary as kubectl runs it for `kubectl sylva-planner`.
			e := newEnv(ts.MkAbs("."), ts.Stdout(), ts.Stderr(), ts.Getenv)
			e.Today = scriptToday
			code := runEnv(context.Background(), e, append([]string{cliapp.PluginName}, args...))
			ts.Setenv("LAST_EXIT", strconv.Itoa(code))
			if (code != 0) != neg {
				ts.Fatalf("kubectl-sylva_planner exited %d", code)
			}
		},
		"feed": func(ts *testscript.TestScript, neg bool, args []string) {
			if len(args) != 1 || neg {
				ts.Fatalf("usage: feed FILE")
			}
			ts.Setenv("FEED", args[0])
		},
		"mkfifo": func(ts *testscript.TestScript, neg bool, args []string) {
			if len(args) != 1 || neg {
				ts.Fatalf("usage: mkfifo PATH")
			}
			ts.Check(syscall.Mkfifo(ts.MkAbs(args[0]), 0o644))
		},
		"exitcode": func(ts *testscript.TestScript, neg bool, args []string) {
			if len(args) != 1 || neg {
				ts.Fatalf("usage: exitcode N")
			}
			if got := ts.Getenv("LAST_EXIT"); got != args[0] {
				ts.Fatalf("exit code %s, want %s", got, args[0])
			}
		},
		"envelope": func(ts *testscript.TestScript, neg bool, args []string) {
			if len(args) != 1 || neg {
				ts.Fatalf("usage: envelope KIND")
			}
			if err := checkEnvelope([]byte(ts.ReadFile("stdout")), args[0], scriptToday.Format(time.DateOnly)); err != nil {
				ts.Fatalf("%v", err)
			}
		},
	}
}

// checkEnvelope checks that doc (JSON or YAML) has apiVersion, kind and
// metadata{toolVersion, catalogVersion, asOf}.
func checkEnvelope(doc []byte, kind, asOf string) error {
	var d struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Metadata   struct {
			ToolVersion    string `json:"toolVersion"`
			CatalogVersion string `json:"catalogVersion"`
			AsOf           string `json:"asOf"`
		} `json:"metadata"`
	}
	if err := yaml.Unmarshal(doc, &d); err != nil {
		return fmt.Errorf("not one JSON or YAML document: %w", err)
	}
	md := d.Metadata
	switch {
	case d.APIVersion != envelope.APIVersion:
		return fmt.Errorf("apiVersion %q, want %q", d.APIVersion, envelope.APIVersion)
	case d.Kind != kind:
		return fmt.Errorf("kind %q, want %q", d.Kind, kind)
	case md.ToolVersion == "" || md.CatalogVersion == "":
		return fmt.Errorf("metadata %+v lacks the tool or the catalog version", md)
	case md.AsOf != asOf:
		return fmt.Errorf("metadata.asOf %q, want %s", md.AsOf, asOf)
	}
	return nil
}

// BenchmarkPlanProcess measures the whole `sylva-planner plan --from 1.4
// --to 1.6` process of the one binary `make build` installs: wall time per
// run and, through GNU time when it is installed, the peak resident set
// size. (A child's own rusage would count
// the memory of this test process it was forked from.)
func BenchmarkPlanProcess(b *testing.B) {
	bin := filepath.Join(b.TempDir(), "sylva-planner")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		b.Fatal(err)
	}
	args := []string{"plan", "--from", "1.4", "--to", "1.6", "--as-of", "2026-11-30"}
	b.ResetTimer()
	start := time.Now()
	for b.Loop() {
		if err := exec.Command(bin, args...).Run(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(time.Since(start).Microseconds())/1000/float64(b.N), "ms/process")
	b.StopTimer()
	if _, err := os.Stat("/usr/bin/time"); err == nil {
		out, err := exec.Command("/usr/bin/time", append([]string{"-f", "%M", bin}, args...)...).CombinedOutput()
		if err != nil {
			b.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		if kb, err := strconv.Atoi(lines[len(lines)-1]); err == nil {
			b.ReportMetric(float64(kb)/1024, "peak-RSS-MB")
		}
	}
}
