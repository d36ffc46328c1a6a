package status_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"gitlab.com/sylva-projects/sylva-planner/envelope"
	"gitlab.com/sylva-projects/sylva-planner/internal/golden"
	"gitlab.com/sylva-projects/sylva-planner/semver"
	"gitlab.com/sylva-projects/sylva-planner/status"
)

func TestScenarios(t *testing.T) {
	tests := []struct {
		name        string
		dir         string
		release     string
		source      status.ReleaseSource
		progress    status.Phase
		fresh       bool
		passPending bool
		canStart    bool
		codes       []string
	}{
		{
			name: "fresh install with nothing applied has no release", dir: "fresh-install-nothing-applied",
			source: status.SourceNone, progress: status.PhaseUnknown, fresh: true,
			codes: []string{status.CodeFluxNotRead, status.CodeDigDefault},
		},
		{
			name: "fresh install whose first release is applying is installing, not an old release", dir: "fresh-install-first-release-applying",
			source: status.SourceNone, progress: status.PhaseInstalling, fresh: true,
			codes: []string{status.CodeDigDefault},
		},
		{
			name: "status without sylva_release predates status tracking", dir: "pre-tracking-no-sylva-release",
			source: status.SourceNone, progress: status.PhaseDone, canStart: true,
		},
		{
			name: "development chart without sylva_release is not a release", dir: "development-chart-no-sylva-release",
			source: status.SourceNone, progress: status.PhaseUnknown,
			codes: []string{status.CodeFluxNotRead, status.CodeChartVersion},
		},
		{
			name: "chart version 1.4.3 means release 1.4", dir: "chart-version-1.4",
			release: "1.4", source: status.SourceChartVersion, progress: status.PhaseDone, canStart: true,
		},
		{
			name: "mid-transition to 1.6 with another pass required can start it now", dir: "mid-transition-second-pass-pending",
			release: "1.6", source: status.SourceSylvaRelease, progress: status.PhaseDone, passPending: true, canStart: true,
		},
		{
			name: "status keys in additional-info, where the chart writes them, tell the pending pass", dir: "mid-transition-keys-in-additional-info",
			release: "1.6", source: status.SourceSylvaRelease, progress: status.PhaseDone, passPending: true, canStart: true,
		},
		{
			name: "pending pass cannot start while the HelmRelease's last upgrade failed, which is said", dir: "pass-pending-helmrelease-not-ready",
			release: "1.6", source: status.SourceSylvaRelease, progress: status.PhaseFailed, passPending: true,
			codes: []string{status.CodePassFailed},
		},
		{
			name: "suspended HelmRelease with a stale Ready blocks the pending pass", dir: "suspended-helmrelease",
			release: "1.6", source: status.SourceSylvaRelease, progress: status.PhaseDone, passPending: true,
			codes: []string{status.CodeStaleReady, status.CodeSuspended},
		},
		{
			name: "1.6-pre on main is the 1.6 development cycle", dir: "pre-release-on-main",
			release: "1.6-pre", source: status.SourceSylvaRelease, progress: status.PhaseDone, canStart: true,
			codes: []string{status.CodePrereleaseCompare},
		},
		{
			name: "unknown keys are kept and shown, never an error", dir: "unknown-keys-kept",
			release: "1.7", source: status.SourceSylvaRelease, progress: status.PhaseDone, canStart: true,
			codes: []string{status.CodeUnknownKey, status.CodeUnknownKey},
		},
		{
			name: "targets ahead of the status mean a release is in progress", dir: "release-in-progress",
			release: "1.6", source: status.SourceSylvaRelease, progress: status.PhaseInProgress,
		},
		{
			name: "request annotation not yet on the HelmRelease is a pending pass", dir: "requested-pass-not-passed-on",
			release: "1.7", source: status.SourceSylvaRelease, progress: status.PhaseDone, passPending: true, canStart: true,
		},
		{
			name: "pass passed on as the token bound to the status write is in progress until picked up", dir: "bound-token-passed-on-not-picked-up-yet",
			release: "1.6", source: status.SourceSylvaRelease, progress: status.PhaseInProgress,
		},
		{
			name: "pass passed on as the token bound to the status write and picked up is done", dir: "bound-token-picked-up-pass-done",
			release: "1.6", source: status.SourceSylvaRelease, progress: status.PhaseDone, canStart: true,
		},
		{
			name: "request value written in advance without the bound token is still pending", dir: "request-written-in-advance-is-not-handled",
			release: "1.6", source: status.SourceSylvaRelease, progress: status.PhaseDone, passPending: true, canStart: true,
		},
		{
			name: "workload cluster ConfigMap alone gives the release from its chart version", dir: "workload-cluster-configmap-only",
			release: "1.5", source: status.SourceChartVersion, progress: status.PhaseUnknown,
			codes: []string{status.CodeFluxNotRead},
		},
	}
	covered := map[string]bool{}
	for _, tc := range tests {
		covered[tc.dir] = true
		t.Run(tc.name, func(t *testing.T) {
			rep := interpretFile(t, filepath.Join("testdata", tc.dir, "input.yaml"))
			rep.Newest = embeddedNewest(rep.InstalledRelease)
			if got := versionString(rep.InstalledRelease); got != tc.release {
				t.Errorf("InstalledRelease = %q, want %q", got, tc.release)
			}
			if rep.ReleaseSource != tc.source {
				t.Errorf("ReleaseSource = %q, want %q", rep.ReleaseSource, tc.source)
			}
			if rep.Progress != tc.progress {
				t.Errorf("Progress = %q, want %q", rep.Progress, tc.progress)
			}
			if rep.FreshInstall != tc.fresh {
				t.Errorf("FreshInstall = %v, want %v", rep.FreshInstall, tc.fresh)
			}
			if rep.PassPending != tc.passPending {
				t.Errorf("PassPending = %v, want %v", rep.PassPending, tc.passPending)
			}
			if rep.CanStartNow != tc.canStart {
				t.Errorf("CanStartNow = %v, want %v (reasons %q)", rep.CanStartNow, tc.canStart, rep.Reasons)
			}
			if rep.CanStartNow != (len(rep.Reasons) == 0) {
				t.Errorf("CanStartNow = %v with reasons %q", rep.CanStartNow, rep.Reasons)
			}
			var codes []string
			for _, f := range rep.Findings {
				codes = append(codes, f.Code)
			}
			want := slices.Clone(tc.codes)
			slices.Sort(codes)
			slices.Sort(want)
			if diff := cmp.Diff(want, codes); diff != "" {
				t.Errorf("Interpret(%s) finding codes (-want +got):\n%s", tc.dir, diff)
			}
			again := interpretFile(t, filepath.Join("testdata", tc.dir, "input.yaml"))
			again.Newest = rep.Newest
			for _, f := range []struct {
				name  string
				write func(status.Report, *bytes.Buffer) error
			}{
				{"report.txt", func(r status.Report, b *bytes.Buffer) error { return r.WriteTable(b) }},
				{"report.json", func(r status.Report, b *bytes.Buffer) error { return envelope.WriteJSON(b, r.Document()) }},
				{"report.yaml", func(r status.Report, b *bytes.Buffer) error { return envelope.WriteYAML(b, r.Document()) }},
			} {
				var first, second bytes.Buffer
				if err := f.write(rep, &first); err != nil {
					t.Fatalf("write %s: %v", f.name, err)
				}
				if err := f.write(again, &second); err != nil {
					t.Fatalf("write %s again: %v", f.name, err)
				}
				if !bytes.Equal(first.Bytes(), second.Bytes()) {
					t.Errorf("%s differs between two runs on the same input", f.name)
				}
				golden.Assert(t, first.Bytes(), filepath.Join(tc.dir, f.name))
			}
		})
	}
	dirs, err := filepath.Glob(filepath.Join("testdata", "*", "input.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		if name := filepath.Base(filepath.Dir(d)); !covered[name] {
			t.Errorf("scenario %s has no case in TestScenarios", name)
		}
	}
}

func interpretFile(t *testing.T, path string) status.Report {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	obs, err := status.DecodeObservation(data, status.DefaultHelmRelease)
	if err != nil {
		t.Fatalf("DecodeObservation(%s): %v", path, err)
	}
	rep := status.Interpret(obs)
	rep.Metadata = status.Metadata{ToolVersion: "test", CatalogVersion: "test", AsOf: "2026-11-30"}
	return rep
}

func versionString(v semver.Version) string {
	if v.IsZero() {
		return ""
	}
	return v.String()
}

func TestDecodeErrors(t *testing.T) {
	cm := func(data string) string {
		return "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: sylva-units-status\n  namespace: sylva-system\ndata:\n" + data
	}
	tests := []struct {
		name    string
		input   string
		key     string // the KeyError's key, when the error is about one
		wantMsg string // a part of the message
	}{
		{"a boolean that is neither true nor false names its key", cm("  additional_reconciliation_required: maybe\n"), "additional_reconciliation_required", `"maybe"`},
		{"a branch name in sylva_release names the key", cm("  sylva_release: main\n"), "sylva_release", `"main"`},
		{"an empty sylva_release names the key", cm("  sylva_release: \"\"\n"), "sylva_release", "sylva_release"},
		{"one-shot-units that is not a map names the key", cm("  one-shot-units: \"- a\\n- b\\n\"\n"), "one-shot-units", "map"},
		{"one-shot-units that is not YAML names the key", cm("  one-shot-units: \"a: [\"\n"), "one-shot-units", "one-shot-units"},
		{"an unquoted number names the key and says to quote it", cm("  sylva_release: 1.6\n"), "sylva_release", "quote it"},
		{"an unquoted 1.10 is named as written, not as the 1.1 YAML reads", cm("  sylva_release: 1.10\n"), "sylva_release", `value "1.10"`},
		{"an unquoted 1.10 in a List is named as written", "kind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: sylva-units-status}\n  data: {sylva_release: 1.10}\n", "sylva_release", `value "1.10"`},
		{"an unquoted boolean names the key", cm("  additional_reconciliation_required: true\n"), "additional_reconciliation_required", "quote it"},
		{"a nested one-shot state names the unit", cm("  one-shot-units: \"a: {b: c}\"\n"), "one-shot-units", `unit "a"`},
		{"a Secret is not a ConfigMap", "apiVersion: v1\nkind: Secret\nmetadata: {name: x}\n", "", "Secret, not a ConfigMap"},
		{"an object without kind is not a ConfigMap", "apiVersion: v1\ndata: {a: b}\n", "", "no kind"},
		{"text that is not YAML is refused", "{{ not yaml", "", "not YAML"},
		{"a YAML scalar is not an object", "hello\n", "", "not a Kubernetes object"},
		{"data that is a list is refused", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: sylva-units-status}\ndata: [a]\n", "", "data: want a map"},
		{"several YAML documents are refused", cm("  a: b\n") + "---\n" + cm("  c: d\n"), "", "several YAML documents"},
		{"a list with two status ConfigMaps is refused", "kind: List\nitems:\n- {apiVersion: v1, kind: ConfigMap, metadata: {name: sylva-units-status, namespace: a}}\n- {apiVersion: v1, kind: ConfigMap, metadata: {name: sylva-units-status, namespace: b}}\n", "", "several ConfigMaps"},
		{"a list without ConfigMap gives ErrNotFound", "kind: List\nitems: []\n", "", "no sylva-units-status ConfigMap"},
		{"a data key given twice is refused, not the last one kept", cm("  sylva_release: \"1.4\"\n  sylva_release: \"1.6\"\n"), "", "each key once"},
		{"a release with a new line after it is named as the chart compares it", cm("  sylva_release: \"1.4\\n\"\n"), "sylva_release", `value "1.4\n": white space around the release`},
		{"a release with a space before it is refused", cm("  sylva_release: \" 1.4\"\n"), "sylva_release", `value " 1.4"`},
		{"a release in a block scalar keeps its new line and is refused", cm("  sylva_release: |\n    1.4\n"), "sylva_release", `write "1.4"`},
		{"a binary-tagged release is named as written", cm("  sylva_release: !!binary MS40\n"), "sylva_release", `value "!!binary MS40": the value is tagged !!binary`},
		{"a binary-tagged release in a List is named as written", "kind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: sylva-units-status}\n  data: {sylva_release: !!binary MS40}\n", "sylva_release", `value "!!binary MS40"`},
		{"a status key given twice in additional-info names it", cm("  additional-info: \"sylva_release: '1.4'\\nsylva_release: '1.6'\\n\"\n"), "additional-info: sylva_release", "more than once"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := status.Decode([]byte(tc.input))
			if err == nil {
				t.Fatalf("Decode(%q) = nil error, want one", tc.input)
			}
			if !strings.Contains(err.Error(), tc.wantMsg) {
				t.Errorf("Decode error %q does not contain %q", err, tc.wantMsg)
			}
			var ke *status.KeyError
			switch {
			case tc.key == "" && errors.As(err, &ke):
				t.Errorf("Decode error %q is a KeyError for %q, want none", err, ke.Key)
			case tc.key != "" && !errors.As(err, &ke):
				t.Errorf("Decode error %q is not a KeyError, want one for %q", err, tc.key)
			case tc.key != "" && ke.Key != tc.key:
				t.Errorf("Decode error names key %q, want %q", ke.Key, tc.key)
			case tc.key != "" && !strings.Contains(err.Error(), tc.key):
				t.Errorf("Decode error %q does not name key %q", err, tc.key)
			}
		})
	}
}

func TestDecodeReadsPlainAndStrTaggedReleases(t *testing.T) {
	for _, in := range []string{
		"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: sylva-units-status}\ndata:\n  sylva_release: !!str 1.4\n",
		// A tag in another ConfigMap of the List is not the status's.
		"kind: List\nitems:\n- {apiVersion: v1, kind: ConfigMap, metadata: {name: other}, data: {a: !!binary MS40}}\n- {apiVersion: v1, kind: ConfigMap, metadata: {name: sylva-units-status}, data: {sylva_release: \"1.4\"}}\n",
	} {
		s, err := status.Decode([]byte(in))
		if err != nil {
			t.Errorf("Decode(%q) = %v, want release 1.4", in, err)
			continue
		}
		if v, _, ok := s.Release(); !ok || v.String() != "1.4" {
			t.Errorf("Decode(%q) release = %v, %v; want 1.4", in, v, ok)
		}
	}
}

func TestATaggedReleaseMakesOnlyItsNamespaceUnreadable(t *testing.T) {
	list := []byte("kind: List\nitems:\n" +
		"- {apiVersion: v1, kind: ConfigMap, metadata: {name: sylva-units-status, namespace: sylva-system}, data: {sylva_release: !!binary MS40}}\n" +
		"- {apiVersion: v1, kind: ConfigMap, metadata: {name: sylva-units-status, namespace: wc1}, data: {sylva_release: \"1.5\"}}\n")
	entries, err := status.DecodeFleet(list, status.DefaultHelmRelease)
	if err != nil {
		t.Fatal(err)
	}
	var ke *status.KeyError
	if len(entries) != 2 || !errors.As(entries[0].Err, &ke) || ke.Key != "sylva_release" || ke.Value != "!!binary MS40" || entries[1].Err != nil {
		t.Errorf("DecodeFleet = %+v, want sylva-system refused for its tagged sylva_release, wc1 read", entries)
	}
	if _, err := status.DecodeNamespaceObservation(list, status.DefaultHelmRelease, "sylva-system"); !errors.As(err, &ke) {
		t.Errorf("DecodeNamespaceObservation(-n sylva-system) = %v, want the KeyError of sylva_release", err)
	}
	obs, err := status.DecodeNamespaceObservation(list, status.DefaultHelmRelease, "wc1")
	if v, _, ok := obs.ConfigMap.Release(); err != nil || !ok || v.String() != "1.5" {
		t.Errorf("DecodeNamespaceObservation(-n wc1) = %v, %v; want release 1.5", v, err)
	}
}

func TestDecodeEmptyListIsNotFound(t *testing.T) {
	_, err := status.Decode([]byte("apiVersion: v1\nkind: List\nitems: []\n"))
	if !errors.Is(err, status.ErrNotFound) {
		t.Errorf("Decode(empty List) error = %v, want ErrNotFound", err)
	}
}

// In a List, as in a cluster, only the ConfigMap named sylva-units-status
// is the status: another one (kube-root-ca.crt, listed with the Flux
// objects) is not read as it.
func TestDecodeListReadsOnlyTheStatusConfigMap(t *testing.T) {
	for _, items := range []string{
		"- {apiVersion: v1, kind: ConfigMap, metadata: {name: kube-root-ca.crt, namespace: a}, data: {ca.crt: x}}\n",
		"- {apiVersion: v1, kind: ConfigMap, metadata: {name: kube-root-ca.crt, namespace: a}, data: {ca.crt: x}}\n- {apiVersion: v1, kind: ConfigMap, metadata: {name: other, namespace: a}}\n",
	} {
		list := "apiVersion: v1\nkind: List\nitems:\n" + items +
			"- {apiVersion: kustomize.toolkit.fluxcd.io/v1, kind: Kustomization, metadata: {name: sylva-units-status, namespace: a}}\n"
		obs, err := status.DecodeObservation([]byte(list), status.DefaultHelmRelease)
		if err != nil {
			t.Fatal(err)
		}
		if obs.ConfigMap != nil || obs.Namespace != "a" || obs.Kustomization == nil {
			t.Errorf("DecodeObservation(%s) = ConfigMap %v in %q, Kustomization %v; want no ConfigMap, namespace a and the Kustomization", list, obs.ConfigMap, obs.Namespace, obs.Kustomization)
		}
		if _, err := status.Decode([]byte(list)); !errors.Is(err, status.ErrNotFound) {
			t.Errorf("Decode(%s) error = %v, want ErrNotFound", list, err)
		}
	}
}

func TestDecodeKeys(t *testing.T) {
	in := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"sylva-units-status","namespace":"ns1"},"data":{
"sylva_release":"1.6","additional_reconciliation_required":"false","release-revision":"3",
"sylva-units-chart-version":"1.6.1","release-time":"t","values-checksum":"c",
"one-shot-units":"{b: done, a: done}","enabled-units":"- z\n- x\n- z\n","additional-info":"info",
"sylva_branch":"release-1.6","current-k8s":"1.33"}}`
	got, err := status.Decode([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	f := false
	want := &status.Status{
		Name: "sylva-units-status", Namespace: "ns1",
		SylvaRelease:                     semver.MustParse("1.6"),
		AdditionalReconciliationRequired: &f,
		ReleaseRevision:                  "3", ChartVersion: "1.6.1", ReleaseTime: "t", ValuesChecksum: "c",
		OneShotUnits:   map[string]string{"a": "done", "b": "done"},
		EnabledUnits:   []string{"x", "z"},
		AdditionalInfo: "info", SylvaBranch: "release-1.6",
		Unknown: map[string]string{"current-k8s": "1.33"},
	}
	if diff := cmp.Diff(want, got, cmp.Comparer(func(a, b semver.Version) bool { return a.String() == b.String() })); diff != "" {
		t.Errorf("Decode (-want +got):\n%s", diff)
	}
}

// The chart writes the status keys only into additional-info (the YAML of
// additional_sylva_units_status_info); the data's own key wins.
func TestDecodeReadsStatusKeysFromAdditionalInfo(t *testing.T) {
	cm := func(data string) string {
		return "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: sylva-units-status}\ndata:\n" + data
	}
	tests := []struct {
		name, data       string
		release, pending string // pending: "true", "false" or "" (absent)
		from, pass       string
		fromInfo         []string
		err              string
	}{
		{
			name:    "keys only in additional-info are read",
			data:    "  additional-info: |\n    sylva_release: \"1.6\"\n    additional_reconciliation_required: \"true\"\n    transition_from: \"1.4\"\n    transition_pass: \"1\"\n",
			release: "1.6", pending: "true", from: "1.4", pass: "1",
			fromInfo: []string{"sylva_release", "additional_reconciliation_required", "transition_from", "transition_pass"},
		},
		{
			name:    "a key of data wins over additional-info",
			data:    "  sylva_release: \"1.7\"\n  additional-info: |\n    sylva_release: \"1.6\"\n    additional_reconciliation_required: true\n",
			release: "1.7", pending: "true", fromInfo: []string{"additional_reconciliation_required"},
		},
		{
			name:    "an unquoted 1.10 stays 1.10",
			data:    "  additional-info: |\n    sylva_release: 1.10\n",
			release: "1.10", fromInfo: []string{"sylva_release"},
		},
		{
			name: "free text in additional-info is kept and not read",
			data: "  additional-info: deployed by the platform team\n",
		},
		{
			name: "an empty map in additional-info gives no key",
			data: "  additional-info: |\n    {}\n",
		},
		{
			name: "a bad value in additional-info names the key",
			data: "  additional-info: |\n    additional_reconciliation_required: perhaps\n",
			err:  `data key "additional-info: additional_reconciliation_required"`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := status.Decode([]byte(cm(tt.data)))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("Decode error = %v, want it to contain %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			rel := ""
			if !s.SylvaRelease.IsZero() {
				rel = s.SylvaRelease.String()
			}
			pending := ""
			if s.AdditionalReconciliationRequired != nil {
				pending = fmt.Sprint(*s.AdditionalReconciliationRequired)
			}
			got := []string{rel, pending, s.TransitionFrom, s.TransitionPass}
			want := []string{tt.release, tt.pending, tt.from, tt.pass}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("sylva_release, additional_reconciliation_required, transition_from, transition_pass (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.fromInfo, s.FromAdditionalInfo); diff != "" {
				t.Errorf("FromAdditionalInfo (-want +got):\n%s", diff)
			}
		})
	}
}

// A ConfigMap whose additional-info asks for another pass must not be
// reported as settled.
func TestStatusKeysInAdditionalInfoAreNotReportedAsSettled(t *testing.T) {
	in := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: sylva-units-status, namespace: sylva-system}\ndata:\n" +
		"  release-revision: \"4\"\n  additional-info: |\n    sylva_release: \"1.6\"\n    additional_reconciliation_required: \"true\"\n"
	obs, err := status.DecodeObservation([]byte(in), status.DefaultHelmRelease)
	if err != nil {
		t.Fatal(err)
	}
	r := status.Interpret(obs)
	var b strings.Builder
	if err := r.WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "No further pass is pending") {
		t.Errorf("status says no further pass is pending:\n%s", b.String())
	}
	if !r.PassPending {
		t.Errorf("PassPending = false, want true (%q)", r.Summary)
	}
}

func TestEnabledUnitsForms(t *testing.T) {
	tests := []struct {
		name, value string
		want        []string
	}{
		{"a YAML list is sorted without duplicates", "[b, a, b]", []string{"a", "b"}},
		{"a map keeps the enabled units", "{a: true, b: false, c: true}", []string{"a", "c"}},
		{"comma and space separated names are split", "b, a c\nd", []string{"a", "b", "c", "d"}},
		{"an empty value is no unit", "", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := "kind: ConfigMap\napiVersion: v1\nmetadata: {name: sylva-units-status}\ndata:\n  enabled-units: " + quote(tc.value) + "\n"
			s, err := status.Decode([]byte(in))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, s.EnabledUnits); diff != "" {
				t.Errorf("EnabledUnits of %q (-want +got):\n%s", tc.value, diff)
			}
		})
	}
}

func quote(s string) string {
	return `"` + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), "\n", `\n`) + `"`
}

func TestRelease(t *testing.T) {
	tests := []struct {
		name   string
		status *status.Status
		want   string
		source status.ReleaseSource
		ok     bool
	}{
		{"no ConfigMap is no release", nil, "", status.SourceNone, false},
		{"sylva_release wins over everything", &status.Status{SylvaRelease: semver.MustParse("1.6"), ChartVersion: "1.5.2", SylvaBranch: "release-1.5"}, "1.6", status.SourceSylvaRelease, true},
		{"1.6-pre is kept as a pre-release of 1.6", &status.Status{SylvaRelease: semver.MustParse("1.6-pre")}, "1.6-pre", status.SourceSylvaRelease, true},
		{"a release chart version gives its minor", &status.Status{ChartVersion: "1.4.3"}, "1.4", status.SourceChartVersion, true},
		{"a release candidate chart gives a pre-release of its minor", &status.Status{ChartVersion: "1.5.0-rc.1"}, "1.5-rc.1", status.SourceChartVersion, true},
		{"a development chart falls back to the branch", &status.Status{ChartVersion: "0.0.0-git-c2cf24ef+9675be9d", SylvaBranch: "release-1.5"}, "1.5", status.SourceBranch, true},
		{"an old 0.x chart is not a release", &status.Status{ChartVersion: "0.1.0+7e1c2369eddf.2"}, "", status.SourceNone, false},
		{"main is development, not a release", &status.Status{SylvaBranch: "main"}, "", status.SourceBranch, false},
		{"a status with none of the keys predates tracking", &status.Status{ReleaseRevision: "3"}, "", status.SourceNone, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v, src, ok := tc.status.Release()
			if got := versionString(v); got != tc.want || src != tc.source || ok != tc.ok {
				t.Errorf("Release() = %q, %q, %v, want %q, %q, %v", got, src, ok, tc.want, tc.source, tc.ok)
			}
		})
	}
}

func TestInterpretWithoutConfigMapIsFreshInstall(t *testing.T) {
	fresh := status.Interpret(status.Observation{Namespace: "sylva-system", FluxRead: true})
	old := status.Interpret(status.Observation{Namespace: "sylva-system", FluxRead: true, ConfigMap: &status.Status{Name: "sylva-units-status", ReleaseRevision: "3"}})
	if !fresh.FreshInstall || fresh.Progress != status.PhaseNotInstalled {
		t.Errorf("no ConfigMap: FreshInstall = %v, Progress = %q, want true, %q", fresh.FreshInstall, fresh.Progress, status.PhaseNotInstalled)
	}
	if old.FreshInstall {
		t.Errorf("ConfigMap without sylva_release: FreshInstall = true, want false")
	}
	if fresh.Release == old.Release {
		t.Errorf("fresh install and old release are described alike: %q", fresh.Release)
	}
}

func TestRequestedPassHandled(t *testing.T) {
	const req = "2025-06-01T10:05:00Z"
	ready := &status.Condition{Status: "True", ObservedGeneration: 2}
	ks := &status.FluxObject{
		Kind: "Kustomization", Name: "sylva-units-status", Generation: 1, ObservedGeneration: 1, Ready: ready,
		Annotations: map[string]string{status.AnnotationReconciliationRequested: req},
	}
	cm := &status.Status{Name: "sylva-units-status", SylvaRelease: semver.MustParse("1.7")}
	tests := []struct {
		name                 string
		requestedAt, handled string
		pending, inProgress  bool
	}{
		{"a request not copied to the HelmRelease is pending", "", "", true, false},
		{"a request copied but not handled is in progress", req, "", false, true},
		{"a handled request is neither pending nor in progress", req, req, false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			hr := &status.FluxObject{
				Kind: "HelmRelease", Name: "sylva-units", Generation: 2, ObservedGeneration: 2, Ready: ready,
				LastHandledReconcileAt: tc.handled, Annotations: map[string]string{status.AnnotationReconcileRequestedAt: tc.requestedAt},
			}
			r := status.Interpret(status.Observation{ConfigMap: cm, Kustomization: ks, HelmRelease: hr, FluxRead: true})
			if r.PassPending != tc.pending || r.InProgress != tc.inProgress {
				t.Errorf("Interpret: PassPending, InProgress = %v, %v, want %v, %v (%q)", r.PassPending, r.InProgress, tc.pending, tc.inProgress, r.Summary)
			}
		})
	}
}

func TestFluxObjectFromMapErrorsNameTheField(t *testing.T) {
	_, err := status.FluxObjectFromMap(map[string]any{
		"kind": "HelmRelease", "metadata": map[string]any{"name": "sylva-units", "generation": "two"},
	})
	if err == nil || !strings.Contains(err.Error(), "metadata.generation") {
		t.Errorf("FluxObjectFromMap error = %v, want one naming metadata.generation", err)
	}
}
