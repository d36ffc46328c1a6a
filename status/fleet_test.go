package status_test

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gitlab.com/sylva-projects/sylva-planner/envelope"
	"gitlab.com/sylva-projects/sylva-planner/internal/golden"
	"gitlab.com/sylva-projects/sylva-planner/semver"
	"gitlab.com/sylva-projects/sylva-planner/status"
)

func readFleet(t *testing.T) []status.FleetEntry {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "fleet", "objects.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	entries, err := status.DecodeFleet(data, status.DefaultHelmRelease)
	if err != nil {
		t.Fatalf("DecodeFleet: %v", err)
	}
	return entries
}

// fleetSelection is a live read of context mgmt.
var fleetSelection = envelope.Selection{Kubeconfig: "kc.yaml", Context: "mgmt"}

// embeddedNewest is what the command fills from the embedded catalog
// (action.NewestFrom): the newest release that supports upgrading from
// installed.
func embeddedNewest(installed semver.Version) semver.Version {
	switch installed.Short() {
	case "1.3":
		return semver.MustParse("1.4")
	case "1.4":
		return semver.MustParse("1.6")
	case "1.5", "1.6", "1.7":
		return semver.MustParse("1.7")
	}
	return semver.Version{}
}

func TestFleetOutput(t *testing.T) {
	fleet := func(t *testing.T, to bool) status.Fleet {
		t.Helper()
		sel := fleetSelection
		if to {
			sel.To = "1.6"
		}
		f := status.InterpretFleet(readFleet(t), sel)
		f.Suggest(embeddedNewest)
		f.Metadata = status.Metadata{ToolVersion: "test", CatalogVersion: "test", AsOf: "2026-11-30"}
		if to {
			// What the command fills from planner.Locate.
			for i := range f.Releases {
				r := &f.Releases[i]
				switch r.Namespace {
				case "sylva-system":
					r.Transition = &status.Transition{Target: "1.6", Route: []string{"1.4", "1.6"}, PassesDone: 1, Passes: 2, PassKnown: true, Summary: "pass 1 of 2 done"}
				case "wc1":
					r.Transition = &status.Transition{Target: "1.6", Route: []string{"1.4", "1.6"}, Passes: 2, PassKnown: true, Summary: "pass 0 of 2 done"}
				case "wc2":
					r.TransitionError = "--to: release 1.6 is older than --from 1.7"
				case "wc4":
					r.Transition = &status.Transition{Target: "1.6", Summary: "fresh install"}
				}
			}
		}
		return f
	}
	for _, tc := range []struct {
		name  string
		to    bool
		write func(status.Fleet, *bytes.Buffer) error
	}{
		{"fleet.txt", false, func(f status.Fleet, b *bytes.Buffer) error { return f.WriteTable(b) }},
		{"fleet.json", false, func(f status.Fleet, b *bytes.Buffer) error { return envelope.WriteJSON(b, f.Document()) }},
		{"fleet.yaml", false, func(f status.Fleet, b *bytes.Buffer) error { return envelope.WriteYAML(b, f.Document()) }},
		{"fleet-to-1.6.txt", true, func(f status.Fleet, b *bytes.Buffer) error { return f.WriteTable(b) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var first, second bytes.Buffer
			if err := tc.write(fleet(t, tc.to), &first); err != nil {
				t.Fatal(err)
			}
			if err := tc.write(fleet(t, tc.to), &second); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(first.Bytes(), second.Bytes()) {
				t.Errorf("%s differs between two runs on the same input", tc.name)
			}
			golden.Assert(t, first.Bytes(), filepath.Join("fleet", tc.name))
		})
	}
}

func TestInterpretFleet(t *testing.T) {
	f := status.InterpretFleet(readFleet(t), fleetSelection)
	f.Suggest(embeddedNewest)
	rows := map[string]status.FleetRow{}
	var order []string
	for _, r := range f.Releases {
		rows[r.Namespace] = r
		order = append(order, r.Namespace)
	}
	if want := []string{"sylva-system", "wc1", "wc2", "wc3", "wc4", "wc5"}; !slices.Equal(order, want) {
		t.Fatalf("namespaces %q, want %q (sorted, wc6 holding no release object)", order, want)
	}
	tests := []struct {
		name, ns  string
		state     status.PassState
		canStart  bool
		nextHas   string
		errorHas  string
		reasonHas string
	}{
		{name: "a pass asked for and not passed on is pending and suggests reconcile in its namespace", ns: "sylva-system", state: status.StatePassPending, canStart: true, nextHas: "sylva-planner reconcile --kubeconfig kc.yaml --context mgmt -n sylva-system"},
		{name: "a finished release suggests planning from it", ns: "wc1", state: status.StateDone, canStart: true, nextHas: "plan --from 1.4 --to 1.6 --kubeconfig kc.yaml --context mgmt -n wc1"},
		{name: "a suspended HelmRelease cannot start", ns: "wc2", state: status.StateUnknown, reasonHas: "HelmRelease sylva-units is suspended"},
		{name: "a malformed ConfigMap is a row saying so", ns: "wc3", state: status.StateUnreadable, errorHas: `data key "additional_reconciliation_required"`, nextHas: "kubectl --kubeconfig kc.yaml --context mgmt get configmap/sylva-units-status -n wc3 -o yaml"},
		{name: "a first installation is installing", ns: "wc4", state: status.StateInstalling, reasonHas: "a release is being applied"},
		{name: "a Kustomization targeting another revision is in progress", ns: "wc5", state: status.StateInProgress, nextHas: "wait, then check again", reasonHas: "a release is being applied"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := rows[tc.ns]
			if r.State != tc.state || r.CanStartNow != tc.canStart {
				t.Errorf("row %s: state %s, can start %v; want %s, %v", tc.ns, r.State, r.CanStartNow, tc.state, tc.canStart)
			}
			if !strings.Contains(r.Next, tc.nextHas) {
				t.Errorf("row %s: next %q, want it to contain %q", tc.ns, r.Next, tc.nextHas)
			}
			if !strings.Contains(r.Error, tc.errorHas) || (tc.errorHas == "") != (r.Error == "") {
				t.Errorf("row %s: error %q, want %q", tc.ns, r.Error, tc.errorHas)
			}
			if tc.reasonHas != "" && !slices.Contains(r.Reasons, tc.reasonHas) {
				t.Errorf("row %s: reasons %q, want %q", tc.ns, r.Reasons, tc.reasonHas)
			}
		})
	}
}

func TestInterpretFleetFromAFile(t *testing.T) {
	// From a file of every namespace, a row's Next is what status -f FILE
	// -n NAMESPACE says of that namespace: its commands read the same
	// file (plan --status FILE -n NAMESPACE reads that namespace's
	// objects, a pass in progress included); nothing asks kubectl about a
	// file.
	sel := envelope.Selection{State: "fleet.yaml"}
	want := map[string]string{
		"wc1": "sylva-planner plan --to 1.6 -n wc1 --status fleet.yaml",
		"wc4": "wait, then read the cluster: sylva-planner status -n wc4",
		"wc3": "fix configmap/sylva-units-status of wc3",
	}
	f := status.InterpretFleet(readFleet(t), sel)
	f.Suggest(embeddedNewest)
	for _, r := range f.Releases {
		if w, ok := want[r.Namespace]; ok && r.Next != w {
			t.Errorf("row %s: next %q, want %q", r.Namespace, r.Next, w)
		}
		if strings.Contains(r.Next, "kubectl") {
			t.Errorf("row %s: next %q asks kubectl", r.Namespace, r.Next)
		}
	}
}

func TestDecodeFleet(t *testing.T) {
	tests := []struct {
		name     string
		input    string
		want     []string // namespaces
		fluxRead bool
		errorHas string
		rowError string // namespace whose entry has an error
	}{
		{name: "a single ConfigMap is a fleet of one", input: "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: sylva-units-status, namespace: wc1}\ndata: {sylva_release: \"1.6\"}\n", want: []string{"wc1"}},
		{name: "an empty List is no release", input: "apiVersion: v1\nkind: List\nitems: []\n", want: []string{}},
		{name: "a List of ConfigMaps alone leaves the Flux objects unknown", input: "apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: ConfigMap, metadata: {name: sylva-units-status, namespace: b}, data: {sylva_release: \"1.6\"}}\n- {apiVersion: v1, kind: ConfigMap, metadata: {name: sylva-units-status, namespace: a}}\n", want: []string{"a", "b"}},
		{name: "a malformed HelmRelease is its namespace's error", input: "apiVersion: v1\nkind: List\nitems:\n- {apiVersion: helm.toolkit.fluxcd.io/v2, kind: HelmRelease, metadata: {name: sylva-units, namespace: a, generation: x}}\n- {apiVersion: v1, kind: ConfigMap, metadata: {name: sylva-units-status, namespace: b}}\n", want: []string{"a", "b"}, fluxRead: true, rowError: "a"},
		{name: "a status ConfigMap twice in one namespace is its error, neither read", input: "apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: ConfigMap, metadata: {name: sylva-units-status, namespace: a}, data: {sylva_release: \"1.6\"}}\n- {apiVersion: v1, kind: ConfigMap, metadata: {name: sylva-units-status, namespace: a}, data: {sylva_release: \"1.4\"}}\n- {apiVersion: v1, kind: ConfigMap, metadata: {name: sylva-units-status, namespace: b}}\n", want: []string{"a", "b"}, rowError: "a"},
		{name: "a HelmRelease twice in one namespace is its error", input: "apiVersion: v1\nkind: List\nitems:\n- {apiVersion: helm.toolkit.fluxcd.io/v2, kind: HelmRelease, metadata: {name: sylva-units, namespace: a}}\n- {apiVersion: helm.toolkit.fluxcd.io/v2, kind: HelmRelease, metadata: {name: sylva-units, namespace: a}}\n- {apiVersion: v1, kind: ConfigMap, metadata: {name: sylva-units-status, namespace: b}}\n", want: []string{"a", "b"}, fluxRead: true, rowError: "a"},
		{name: "a Secret is refused naming what to give", input: "apiVersion: v1\nkind: Secret\n", errorHas: "input is a Secret, not a List"},
		{name: "several documents are refused", input: "apiVersion: v1\nkind: List\n---\napiVersion: v1\nkind: List\n", errorHas: "several YAML documents"},
		{name: "a key given twice is refused", input: "apiVersion: v1\nkind: List\nkind: List\n", errorHas: "each key once"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := status.DecodeFleet([]byte(tc.input), status.DefaultHelmRelease)
			if tc.errorHas != "" {
				if err == nil || !strings.Contains(err.Error(), tc.errorHas) {
					t.Fatalf("DecodeFleet error = %v, want one containing %q", err, tc.errorHas)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			names := []string{}
			for _, e := range got {
				names = append(names, e.Namespace)
				if (e.Err != nil) != (e.Namespace == tc.rowError) {
					t.Errorf("entry %s error = %v, want an error only for %q", e.Namespace, e.Err, tc.rowError)
				}
				if e.Err == nil && e.Observation.FluxRead != tc.fluxRead {
					t.Errorf("entry %s FluxRead = %v, want %v", e.Namespace, e.Observation.FluxRead, tc.fluxRead)
				}
			}
			if !slices.Equal(names, tc.want) {
				t.Errorf("DecodeFleet namespaces %q, want %q", names, tc.want)
			}
		})
	}
}

// A transition's next pass, as the Event of its request names it.
func TestTransitionNextPass(t *testing.T) {
	for _, tt := range []struct {
		t    *status.Transition
		want string
	}{
		{&status.Transition{Target: "1.7", PassesDone: 1, Passes: 3, PassKnown: true}, "pass 2 of 3 of the transition to 1.7"},
		{&status.Transition{Target: "1.7", PassesDone: 0, Passes: 3, PassKnown: true}, "pass 1 of 3 of the transition to 1.7"},
		{&status.Transition{Target: "1.7", PassesDone: 3, Passes: 3, PassKnown: true}, ""},
		{&status.Transition{Target: "1.7", PassesDone: 1, Passes: 3}, ""},
		{nil, ""},
	} {
		if got := tt.t.NextPass(); got != tt.want {
			t.Errorf("%+v.NextPass() = %q, want %q", tt.t, got, tt.want)
		}
	}
}

// An unreadable namespace's next step names the object that does not
// decode, not always the status ConfigMap.
func TestUnreadableRowNamesTheObject(t *testing.T) {
	list := "apiVersion: v1\nkind: List\nitems:\n" +
		"- {apiVersion: v1, kind: ConfigMap, metadata: {name: sylva-units-status, namespace: a}, data: {sylva_release: \"1.6\"}}\n" +
		"- {apiVersion: helm.toolkit.fluxcd.io/v2, kind: HelmRelease, metadata: {name: sylva-units, namespace: a, generation: five}}\n"
	entries, err := status.DecodeFleet([]byte(list), status.DefaultHelmRelease)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		sel  envelope.Selection
		want string
	}{
		{envelope.Selection{State: "fleet.yaml"}, "fix helmreleases.helm.toolkit.fluxcd.io/sylva-units of a"},
		{envelope.Selection{}, "inspect it: kubectl get helmreleases.helm.toolkit.fluxcd.io/sylva-units -n a -o yaml"},
	} {
		rows := status.InterpretFleet(entries, tc.sel).Releases
		if len(rows) != 1 || rows[0].State != status.StateUnreadable || rows[0].Next != tc.want {
			t.Errorf("rows %+v, want one unreadable row whose next is %q", rows, tc.want)
		}
	}
}
