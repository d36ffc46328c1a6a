// Package benchcpu reports the CPU time a benchmark's process spends per
// operation (user and system, garbage collection on every core included):
// the figure of the CPU targets, and the one a loaded machine disturbs
// least.
package benchcpu

import (
	"syscall"
	"testing"
	"time"
)

// Report starts counting; the function it returns, called after the
// benchmark's loop, reports the CPU time per operation as cpu-s/op.
func Report(b *testing.B) func() {
	b.Helper()
	start := processCPU(b)
	return func() {
		b.ReportMetric((processCPU(b)-start).Seconds()/float64(b.N), "cpu-s/op")
	}
}

// processCPU is the CPU time of the process so far.
func processCPU(b *testing.B) time.Duration {
	b.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatalf("read the process's CPU time: %v", err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
