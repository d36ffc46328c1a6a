package cliapp

import (
	"io"
	"log"
	"sync"
)

// RouteStdLog sends the standard logger, through which Helm's chart code
// warns (a values file setting a scalar where the chart has a table, say),
// to w, read as the tool's own warnings: prefix first, no timestamp, and
// each distinct line once, since a render coalesces the values twice and
// Helm warns each time; a value quoted in a warning is shown as
// VisibleWriter shows it. It is for a process's main: the standard logger
// is the process's.
func RouteStdLog(w io.Writer, prefix string) {
	log.SetFlags(0)
	log.SetPrefix(prefix)
	log.SetOutput(&uniqueLines{w: VisibleWriter(w), seen: map[string]bool{}})
}

// uniqueLines writes each distinct write (the standard logger writes one
// line at a time) once.
type uniqueLines struct {
	mu   sync.Mutex
	w    io.Writer
	seen map[string]bool
}

func (u *uniqueLines) Write(p []byte) (int, error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.seen[string(p)] {
		return len(p), nil
	}
	u.seen[string(p)] = true
	return u.w.Write(p)
}
