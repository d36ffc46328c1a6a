package main

import (
	"context"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

var updateScripts = flag.Bool("update", false, "rewrite the expected output in testdata/script/*.txtar")

// TestScripts runs the txtar scripts of testdata/script. The command
// `sylva-planner` runs the real application in-process; `exitcode N`
// asserts the exit code of the last sylva-planner command.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:           "testdata/script",
		UpdateScripts: *updateScripts,
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"sylva-planner": func(ts *testscript.TestScript, neg bool, args []string) {
				code := runIn(context.Background(), ts.Getenv("WORK"), append([]string{"sylva-planner"}, args...), ts.Stdout(), ts.Stderr(), ts.Getenv)
				ts.Setenv("LAST_EXIT", strconv.Itoa(code))
				if code != 0 && !neg {
					ts.Fatalf("sylva-planner exited %d", code)
				}
				if code == 0 && neg {
					ts.Fatalf("sylva-planner succeeded unexpectedly")
				}
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
		},
	})
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
