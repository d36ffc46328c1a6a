package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gitlab.com/sylva-projects/sylva-planner/internal/sylvacore"
)

// TestValuesCheckNextRendersAsTheCheckDid runs values check --chart with
// --skip-schema-validation on values the chart cannot render (units is no
// map), then the values render its Next suggests, as printed, in the same
// directory: the render goes without the schema too, so it fails on the
// template error the check reported, not on the schema the check skipped.
func TestValuesCheckNextRendersAsTheCheckDid(t *testing.T) {
	if testing.Short() {
		t.Skip("renders the real chart")
	}
	tree := sylvacore.At(t, "main") // the chart of 1.4
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(bad, []byte("units: 3\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) (int, string, string) {
		var stdout, stderr bytes.Buffer
		code := runIn(context.Background(), tree.Dir, append([]string{"sylva-planner"}, args...), &stdout, &stderr, func(string) string { return "" })
		return code, stdout.String(), stderr.String()
	}
	code, out, errs := run("values", "check", "--chart", "charts/sylva-units", "-f", "charts/sylva-units/values.yaml", "-f", bad,
		"--from", "1.3", "--to", "1.4", "--skip-schema-validation")
	if code != exitBlocked {
		t.Fatalf("values check: exit %d, want %d; stderr %q\n%s", code, exitBlocked, errs, out)
	}
	_, next, ok := strings.Cut(out, "Next: ")
	next, _, _ = strings.Cut(next, "\n")
	want := "sylva-planner values render -f charts/sylva-units/values.yaml -f " + bad + " --skip-schema-validation --chart charts/sylva-units --to 1.4"
	if !ok || next != want {
		t.Fatalf("values check Next: %q, want %q\n%s", next, want, out)
	}
	code, _, errs = run(strings.Fields(strings.TrimPrefix(next, "sylva-planner "))...)
	if code != exitError || strings.Contains(errs, "schema") || !strings.Contains(errs, "units") {
		t.Errorf("%s: exit %d, stderr %q; want exit %d on the template error, without the schema", next, code, errs, exitError)
	}
}
