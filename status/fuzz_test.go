package status_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gitlab.com/sylva-projects/sylva-planner/envelope"
	"gitlab.com/sylva-projects/sylva-planner/status"
)

func FuzzDecode(f *testing.F) {
	inputs, _ := filepath.Glob(filepath.Join("testdata", "*", "input.yaml"))
	for _, in := range inputs {
		data, err := os.ReadFile(in)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, s := range []string{
		"apiVersion: v1\nkind: ConfigMap\ndata:\n  sylva_release: main\n",
		"apiVersion: v1\nkind: ConfigMap\ndata:\n  one-shot-units: '[a]'\n",
		"apiVersion: v1\nkind: ConfigMap\ndata:\n  additional_reconciliation_required: maybe\n",
		"apiVersion: v1\nkind: ConfigMap\ndata:\n  enabled-units: '{a: [b]}'\n",
		"kind: List\nitems: [1, {kind: HelmRelease, apiVersion: helm.toolkit.fluxcd.io/v2, metadata: {name: sylva-units, generation: 1.5}}]\n",
		"{}", "[]", "null", "---\n---\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		obs, err := status.DecodeObservation(data, status.DefaultHelmRelease)
		if err != nil {
			if err.Error() == "" {
				t.Fatalf("DecodeObservation error has no message")
			}
			var ke *status.KeyError
			if errors.As(err, &ke) && !strings.Contains(err.Error(), ke.Key) {
				t.Fatalf("KeyError %q does not name its key %q", err, ke.Key)
			}
			return
		}
		r := status.Interpret(obs)
		var b strings.Builder
		if err := r.WriteTable(&b); err != nil {
			t.Fatal(err)
		}
		if err := envelope.WriteJSON(&b, r.Document()); err != nil {
			t.Fatal(err)
		}
		if r.CanStartNow != (len(r.Reasons) == 0) {
			t.Fatalf("CanStartNow = %v with reasons %q", r.CanStartNow, r.Reasons)
		}
	})
}
