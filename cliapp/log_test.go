package cliapp

import (
	"bytes"
	"io"
	"log"
	"testing"
)

func TestRouteStdLogWritesEachWarningOnceWithoutATimestamp(t *testing.T) {
	defer func(w io.Writer, flags int, prefix string) {
		log.SetOutput(w)
		log.SetFlags(flags)
		log.SetPrefix(prefix)
	}(log.Writer(), log.Flags(), log.Prefix())
	var buf bytes.Buffer
	RouteStdLog(&buf, "sylva-planner: ")
	log.Printf("warning: destination for %s is a table. Ignoring non-table value (%s)", "x", "y")
	log.Printf("warning: destination for %s is a table. Ignoring non-table value (%s)", "x", "y")
	log.Printf("warning: another")
	want := "sylva-planner: warning: destination for x is a table. Ignoring non-table value (y)\nsylva-planner: warning: another\n"
	if buf.String() != want {
		t.Errorf("log output = %q, want %q", buf.String(), want)
	}
}
