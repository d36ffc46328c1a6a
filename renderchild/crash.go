package renderchild

import (
	"bytes"
	"io"
	"strings"
	"sync"
)

// crashCaptureLimit bounds the crash report kept from the child.
const crashCaptureLimit = 64 << 10

// crashFilter passes the child's standard error through line by line
// until a Go crash report starts ("panic: ", "fatal error: ", "runtime: "
// at the start of a line); it keeps the report instead, so that the parent
// prints one line.
type crashFilter struct {
	w io.Writer

	mu       sync.Mutex
	line     []byte // the start of a line not yet passed
	crashed  bool
	captured bytes.Buffer
}

var crashPrefixes = []string{"panic: ", "fatal error: ", "runtime: "}

func (f *crashFilter) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := len(p)
	for len(p) > 0 {
		if f.crashed {
			if room := crashCaptureLimit - f.captured.Len(); room > 0 {
				f.captured.Write(p[:min(room, len(p))])
			}
			return n, nil
		}
		i := bytes.IndexAny(p, "\n\r")
		if i < 0 {
			f.line = append(f.line, p...)
			return n, nil
		}
		f.line = append(f.line, p[:i+1]...)
		p = p[i+1:]
		if f.startsCrash(f.line) {
			f.crashed = true
			f.captured.Write(f.line)
		} else if _, err := f.w.Write(f.line); err != nil {
			f.line = f.line[:0]
			return n, err
		}
		f.line = f.line[:0]
	}
	return n, nil
}

func (f *crashFilter) startsCrash(line []byte) bool {
	for _, p := range crashPrefixes {
		if bytes.HasPrefix(line, []byte(p)) {
			return true
		}
	}
	return false
}

// flush passes a last line that has no newline, unless a crash report
// started.
func (f *crashFilter) flush() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.crashed && len(f.line) > 0 {
		_, _ = f.w.Write(f.line)
	}
	f.line = nil
}

// cause is the line of the crash report that says what happened
// ("fatal error: stack overflow", "panic: …", "runtime: out of memory"),
// else its first line; empty without a crash report.
func (f *crashFilter) cause() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.crashed {
		return ""
	}
	lines := strings.Split(f.captured.String(), "\n")
	for _, prefix := range []string{"fatal error: ", "panic: ", "runtime: out of memory"} {
		for _, l := range lines {
			if strings.HasPrefix(l, prefix) {
				return strings.TrimSpace(l)
			}
		}
	}
	return strings.TrimSpace(lines[0])
}
