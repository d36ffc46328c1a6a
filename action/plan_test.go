package action_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"gitlab.com/sylva-projects/sylva-planner/action"
	"gitlab.com/sylva-projects/sylva-planner/internal/catalogtest"
)

// TestMissingFlagNamesNoCommand: a required flag missing is a
// MissingFlagError whose example the command line completes with the
// command it ran; the action names none.
func TestMissingFlagNamesNoCommand(t *testing.T) {
	cat := catalogtest.Default(t)
	newest := cat.Newest().String()
	tests := []struct {
		name string
		run  func() error
		want action.MissingFlagError
	}{
		{
			"plan without a target",
			func() error {
				_, err := (action.PlanRequest{Releases: action.Releases{Catalog: cat, From: "1.4"}}).Run(context.Background())
				return err
			},
			action.MissingFlagError{Flag: "--to", Example: "--from 1.4 --to " + newest},
		},
		{
			"plan from a status without a target does not suggest --from beside it",
			func() error {
				_, err := (action.PlanRequest{Releases: action.Releases{Catalog: cat}, Status: &fakeStatus{}}).Run(context.Background())
				return err
			},
			action.MissingFlagError{Flag: "--to", Example: "--to " + newest},
		},
		{
			"plan without a source release or a status",
			func() error {
				_, err := (action.PlanRequest{Releases: action.Releases{Catalog: cat, To: "1.6"}}).Run(context.Background())
				return err
			},
			action.MissingFlagError{Flag: "--from", Alternatives: "--status FILE, or --live to read the installed release from the cluster", Example: "--from 1.4 --to 1.6"},
		},
		{
			"the release flags without --from",
			func() error { _, err := action.PlannerInput(cat, "", "1.6", "", ""); return err },
			action.MissingFlagError{Flag: "--from", Example: "--from 1.4 --to 1.6"},
		},
		{
			"the release flags without --to",
			func() error { _, err := action.PlannerInput(cat, "1.5", "", "", ""); return err },
			action.MissingFlagError{Flag: "--to", Example: "--from 1.5 --to " + newest},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.run()
			var mf *action.MissingFlagError
			if !errors.As(err, &mf) {
				t.Fatalf("error = %v, want a *MissingFlagError", err)
			}
			if diff := cmp.Diff(tt.want, *mf); diff != "" {
				t.Errorf("MissingFlagError (-want +got):\n%s", diff)
			}
			if got, want := mf.UsageMessage("sylva-planner report"), "for example: sylva-planner report "+tt.want.Example; !strings.HasSuffix(got, want) {
				t.Errorf("UsageMessage() = %q, want it to end with %q", got, want)
			}
			if strings.Contains(err.Error(), "sylva-planner") {
				t.Errorf("Error() = %q names a command", err)
			}
		})
	}
}

// TestStatusWithoutReleaseGivesAFixTheCommandAccepts: a status that names
// no installed release asks for --from instead of a status file (--from
// beside --status is refused), and for --from beside a live read.
func TestStatusWithoutReleaseGivesAFixTheCommandAccepts(t *testing.T) {
	const noRelease = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: sylva-units-status, namespace: sylva-system}\ndata:\n  additional_reconciliation_required: \"false\"\n"
	const noConfigMap = "apiVersion: v1\nkind: List\nitems: []\n"
	file := func(doc string) action.StatusSource {
		return action.StatusFile{Flag: "--status", Name: "cm.yaml", Read: func(string) ([]byte, error) { return []byte(doc), nil }}
	}
	tests := []struct {
		name   string
		status action.StatusSource
		want   string
	}{
		{"a file that names no release", file(noRelease), "does not say which release is installed (none); give --from instead of --status"},
		{"a file without the ConfigMap", file(noConfigMap), "nothing to upgrade from; give --from instead of --status to plan anyway"},
		{"a live status that names no release", &fakeStatus{yaml: noRelease}, "does not say which release is installed (none); give --from"},
		{"a live read without the ConfigMap", &fakeStatus{yaml: noConfigMap}, "nothing to upgrade from; give --from to plan anyway"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := action.PlanRequest{Releases: action.Releases{Catalog: catalogtest.Default(t), To: "1.6", AsOf: asOf}, Status: tt.status}.Run(context.Background())
			if err == nil || !strings.HasSuffix(err.Error(), tt.want) {
				t.Errorf("Plan() error = %v, want one ending with %q", err, tt.want)
			}
		})
	}
}
