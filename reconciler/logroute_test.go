package reconciler

import (
	"strings"
	"testing"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
)

// TestRouteControllerRuntimeLogs routes controller-runtime's one
// process-wide logger twice: what it logs, through loggers named before
// and after the routes, goes to the logger routed last, with its names
// and values; routed nowhere, nothing is written.
func TestRouteControllerRuntimeLogs(t *testing.T) {
	var got []string
	capture := funcr.New(func(prefix, args string) { got = append(got, prefix+" "+args) }, funcr.Options{})
	early := ctrllog.Log.WithName("client").WithValues("host", "a")

	RouteControllerRuntimeLogs(logr.Discard())
	early.Info("dropped")
	if len(got) != 0 {
		t.Fatalf("routed nowhere, wrote %q", got)
	}

	RouteControllerRuntimeLogs(capture)
	t.Cleanup(func() { RouteControllerRuntimeLogs(logr.Discard()) })
	early.Info("kept", "k", "v")
	ctrllog.Log.WithName("late").V(0).Info("also kept")
	ctrllog.Log.V(1).Info("below the level") // funcr writes V(0) only
	want := []string{
		`client "level"=0 "msg"="kept" "host"="a" "k"="v"`,
		`late "level"=0 "msg"="also kept"`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("routed to the capture, wrote\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	got = nil
	RouteControllerRuntimeLogs(logr.Discard())
	early.Info("dropped again")
	if len(got) != 0 {
		t.Fatalf("routed nowhere again, wrote %q", got)
	}
}
