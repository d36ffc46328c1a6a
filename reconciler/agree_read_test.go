package reconciler

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"gitlab.com/sylva-projects/sylva-planner/status"
	"gitlab.com/sylva-projects/sylva-planner/status/statuskube"
)

// TestStatusAndReconcileReadAlike puts the same objects on the real API
// server and reads them the ways the commands do: the status and verify
// commands (statuskube.Reader.Read), status -A (statuskube.Reader.ReadAll, which lists
// and converts instead of getting each object) and reconcile (Fetch over
// the client the command builds). Every way gives the same Observation, and
// the same refusal of a malformed status ConfigMap; then status and
// reconcile agree on it as TestStatusAndReconcileAgree checks.
func TestStatusAndReconcileReadAlike(t *testing.T) {
	c := newCluster(t)
	ctx := ctxFor(t)
	reader, err := statuskube.NewReader(c.cfg, statuskube.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cl, err := client.New(c.cfg, client.Options{Scheme: Scheme()})
	if err != nil {
		t.Fatal(err)
	}
	notReady := healthy()
	notReady.hrReady = false
	suspended := healthy()
	suspended.suspended = true
	requested := healthy()
	requested.request = "2025-06-01T10:00:00Z"
	noKustomization := healthy()
	noKustomization.kustomization = false
	noHelmRelease := healthy()
	noHelmRelease.helmRelease = false
	malformed := healthy()
	malformed.configMapData = map[string]string{status.KeyAdditionalReconciliationRequired: "maybe"}
	tests := []struct {
		name    string
		f       fixture
		invalid bool
		empty   bool
	}{
		{name: "a pass requested by the status that can start", f: healthy()},
		{name: "a pass requested while the HelmRelease is not Ready", f: notReady},
		{name: "a pass requested while the HelmRelease is suspended", f: suspended},
		{name: "a pass requested by the Kustomization's annotation", f: requested},
		{name: "no Kustomization", f: noKustomization},
		{name: "no HelmRelease", f: noHelmRelease},
		{name: "an empty namespace", f: fixture{}, empty: true},
		{name: "a malformed status value", f: malformed, invalid: true},
	}
	namespaces := map[string]string{}
	for _, tt := range tests {
		namespaces[tt.name] = c.setup(t, tt.f)
	}
	all, err := reader.ReadAll(ctx)
	if err != nil {
		t.Fatalf("ReadAll: %v", err)
	}
	fleet := map[string]status.FleetEntry{}
	for _, e := range all {
		fleet[e.Namespace] = e
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ns := namespaces[tt.name]
			snap, err := Fetch(ctx, cl, Target{Namespace: ns})
			if err != nil {
				t.Fatalf("Fetch: %v", err)
			}
			obs, readErr := reader.Read(ctx, ns)
			entry, listed := fleet[ns]
			if tt.invalid {
				var ke *status.KeyError
				for what, err := range map[string]error{"Read": readErr, "ReadAll": entry.Err} {
					if !errors.As(err, &ke) || ke.Key != status.KeyAdditionalReconciliationRequired {
						t.Errorf("%s error = %v, want a KeyError for %s", what, err, status.KeyAdditionalReconciliationRequired)
					}
				}
				if readErr == nil || entry.Err == nil || snap.Input.Invalid != readErr.Error() || entry.Err.Error() != readErr.Error() {
					t.Errorf("the malformed ConfigMap reads as %q (reconcile), %v (status), %v (status -A); want the same refusal", snap.Input.Invalid, readErr, entry.Err)
				}
				if d := Decide(snap.Input); d.Outcome != ConclusionInvalid {
					t.Errorf("Decide = %s, want %s", d, ConclusionInvalid)
				}
				return
			}
			if readErr != nil {
				t.Fatalf("Read: %v", readErr)
			}
			if snap.Input.Invalid != "" {
				t.Fatalf("Fetch: Invalid = %q, want every object decoded", snap.Input.Invalid)
			}
			if diff := cmp.Diff(obs, snap.Input.Observation); diff != "" {
				t.Errorf("status (Read) and reconcile (Fetch) read different observations (-status +reconcile):\n%s", diff)
			}
			if tt.empty {
				if listed {
					t.Errorf("ReadAll lists the empty namespace %s", ns)
				}
			} else if diff := cmp.Diff(obs, entry.Observation); !listed || entry.Err != nil || diff != "" {
				t.Errorf("status (Read) and status -A (ReadAll: listed %v, error %v) read different observations (-Read +ReadAll):\n%s", listed, entry.Err, diff)
			}
			checkAgreement(t, snap.Input.Observation)
		})
	}
}
