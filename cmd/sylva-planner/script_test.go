//go:build !lite

package main

import (
	"context"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
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
// --to 1.6` process of the lite build (what `make build` installs as
// sylva-planner): wall time per run and the peak resident set size.
func BenchmarkPlanProcess(b *testing.B) {
	bin := filepath.Join(b.TempDir(), "sylva-planner")
	build := exec.Command("go", "build", "-tags", "lite", "-o", bin, ".")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		b.Fatal(err)
	}
	var maxRSS int64
	b.ResetTimer()
	start := time.Now()
	for b.Loop() {
		cmd := exec.Command(bin, "plan", "--from", "1.4", "--to", "1.6", "--as-of", "2026-11-30")
		if err := cmd.Run(); err != nil {
			b.Fatal(err)
		}
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			maxRSS = max(maxRSS, ru.Maxrss)
		}
	}
	b.ReportMetric(float64(time.Since(start).Milliseconds())/float64(b.N), "ms/process")
	b.ReportMetric(float64(maxRSS)/1024, "peak-RSS-MB")
}
