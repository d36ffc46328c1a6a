package kubetest

import (
	"context"
	"net"
	"testing"
	"time"
)

// Eventually polls cond until it holds, and fails tb when timeout passes
// first: "timed out after TIMEOUT waiting until WHAT".
func Eventually(tb testing.TB, timeout time.Duration, what string, cond func() bool) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	if !poll(ctx, cond) {
		tb.Fatalf("timed out after %s waiting until %s", timeout, what)
	}
}

// EventuallyCtx polls cond until it holds, and fails tb when ctx ends
// first: "timed out waiting until WHAT".
func EventuallyCtx(tb testing.TB, ctx context.Context, what string, cond func() bool) {
	tb.Helper()
	if !poll(ctx, cond) {
		tb.Fatalf("timed out waiting until %s", what)
	}
}

// Poll intervals: quick at first, for what holds within moments, then no
// more often than maxPoll, for what a controller takes its time over.
const (
	firstPoll = 50 * time.Millisecond
	maxPoll   = 500 * time.Millisecond
)

// poll reports whether cond held before ctx ended; cond runs at least once.
func poll(ctx context.Context, cond func() bool) bool {
	interval := firstPoll
	for !cond() {
		t := time.NewTimer(interval)
		select {
		case <-ctx.Done():
			t.Stop()
			return false
		case <-t.C:
		}
		interval = min(2*interval, maxPoll)
	}
	return true
}

// FreeAddress is a 127.0.0.1 address with a port that was free when asked,
// for a server a test starts.
func FreeAddress(tb testing.TB) string {
	tb.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	return addr
}
