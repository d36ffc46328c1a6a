package catalog

import (
	"strings"
	"testing"
	"testing/fstest"

	"gitlab.com/sylva-projects/sylva-planner/semver"
)

func TestDefaultCatalogLoadsAndCoversSylva10To17(t *testing.T) {
	c, err := Default()
	if err != nil {
		t.Fatalf("Default() error = %v", err)
	}
	got := strings.Join(c.ReleaseNames(), " ")
	if want := "1.0 1.1 1.2 1.3 1.4 1.5 1.6 1.7"; got != want {
		t.Errorf("releases = %q, want %q", got, want)
	}
	if c.Version == "" || c.Updated.IsZero() {
		t.Errorf("header missing: version %q updated %v", c.Version, c.Updated)
	}
}

func TestDefaultCatalogHoldsTheDomainFacts(t *testing.T) {
	c, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		release, mgmt, longhorn string
		from                    []string
	}{
		{"1.0", "1.27", "1.5.3", nil},
		{"1.3", "1.30", "1.7.3", []string{"1.2"}},
		{"1.4", "1.31", "1.8.1", []string{"1.3"}},
		{"1.5", "1.32", "1.8.2", []string{"1.4"}},
		{"1.6", "1.33", "1.9.2", []string{"1.4", "1.5"}},
		{"1.7", "1.35", "1.11.3", []string{"1.5", "1.6"}},
	}
	for _, tt := range tests {
		r, ok := c.Release(semver.MustParse(tt.release))
		if !ok {
			t.Fatalf("release %s missing", tt.release)
		}
		if r.Kubernetes.Management.Short() != tt.mgmt {
			t.Errorf("release %s management = %s, want %s", tt.release, r.Kubernetes.Management, tt.mgmt)
		}
		lh, _ := r.Component("longhorn")
		if lh.Version.String() != tt.longhorn {
			t.Errorf("release %s longhorn = %s, want %s", tt.release, lh.Version, tt.longhorn)
		}
		var from []string
		for _, f := range r.UpgradeFrom {
			from = append(from, f.String())
		}
		if strings.Join(from, ",") != strings.Join(tt.from, ",") {
			t.Errorf("release %s upgrade_from = %v, want %v", tt.release, from, tt.from)
		}
		if len(r.Kubernetes.Versions) != 3 {
			t.Errorf("release %s maps %d minors, want 3 (management and two older)", tt.release, len(r.Kubernetes.Versions))
		}
	}
}

func TestChartVersionsOfLonghornComeFromTheReleases(t *testing.T) {
	c, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ version, want string }{
		{"1.5.3", "103.2.1+up1.5.3"},
		{"1.6.3", "104.1.1+up1.6.3"},
		{"1.7.3", "104.2.2+up1.7.3"},
		{"1.8.1", "105.2.0+up1.8.1"},
		{"1.10.2", "108.2.1+up1.10.2"},
		{"1.9.2", ""},
	}
	for _, tt := range tests {
		got, ok := c.ChartVersion("longhorn", semver.MustParse(tt.version))
		if got != tt.want || ok != (tt.want != "") {
			t.Errorf("ChartVersion(longhorn, %s) = %q, %t; want %q", tt.version, got, ok, tt.want)
		}
	}
}

const header = "apiVersion: planner.sylva/v1alpha1\ncatalogVersion: \"t\"\nupdated: \"2026-01-01\"\n"

const comps = header + "kind: ComponentCatalog\ncomponents:\n" +
	"  - name: external-secrets\n    versions:\n      - {version: \"0.16\", min_k8s: \"1.32\", max_k8s: \"1.32\"}\n" +
	"  - name: longhorn\n    stepping: minor\n    versions:\n      - {version: \"1.8.1\", min_k8s: \"1.25\"}\n"

func rel(version, extra string) string {
	return "  - release: \"" + version + "\"\n" + extra +
		"    kubernetes:\n      management: \"1.31\"\n      versions:\n        - {minor: \"1.31\", kubeadm: \"v1.31.8\", rke2: \"v1.31.8+rke2r1\"}\n"
}

func TestLoadRefusesBadCatalogsNamingTheEntry(t *testing.T) {
	tests := []struct {
		name, releases, want string
	}{
		{"duplicate release", rel("1.4", "") + rel("1.4", ""), "release 1.4 is listed twice"},
		{"unsorted releases", rel("1.5", "") + rel("1.4", ""), "release 1.4 is out of order"},
		{"unparsable version", rel("1.x", ""), `version "1.x"`},
		{"unknown upgrade source", rel("1.4", "    upgrade_from: [\"1.3\"]\n"), "upgrade source 1.3 is not an older release"},
		{"numeric version", strings.Replace(rel("1.4", ""), `"1.31"`, "1.30", 1), "quote it"},
		{"unknown field", rel("1.4", "    colour: blue\n"), `unknown field "colour"`},
		{"unknown component", rel("1.4", "    components: [{name: kyverno, version: \"1.12.0\"}]\n"), "component kyverno is not in the component catalog"},
		{"unknown component version", rel("1.4", "    components: [{name: longhorn, version: \"1.8.9\"}]\n"), "longhorn 1.8.9 is not a version"},
		{"release with a patch", rel("1.4.1", ""), "write releases as MAJOR.MINOR"},
		{"chart of another version", rel("1.4", "    components: [{name: longhorn, version: \"1.8.1\", chart: \"105.1.0+up1.8.0\"}]\n"), "chart 105.1.0+up1.8.0 is for 1.8.0"},
		{
			"a component that does not support its own release's minor",
			rel("1.4", "    components: [{name: external-secrets, version: \"0.16.2\", source: \"main:charts/sylva-units/values.yaml#units.external-secrets-operator\"}]\n"),
			"release 1.4: external-secrets 0.16.2 (main:charts/sylva-units/values.yaml#units.external-secrets-operator) does not support Kubernetes 1.31, which release 1.4 runs",
		},
		{"capability without a source", rel("1.4", "    capabilities: {hold_workers: {value: true}}\n"), "capabilities.hold_workers has no source"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fsys := fstest.MapFS{
				"components.yaml": {Data: []byte(comps)},
				"releases.yaml":   {Data: []byte(header + "kind: ReleaseCatalog\nreleases:\n" + tt.releases)},
			}
			_, err := Load(fsys)
			if err == nil {
				t.Fatalf("Load succeeded, want an error containing %q", tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Load error = %q, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestLoadFileReadsAMultiDocumentCatalog(t *testing.T) {
	data := comps + "---\n" + header + "kind: ReleaseCatalog\nreleases:\n" + rel("1.4", "")
	c, err := LoadFile(fstest.MapFS{"cat.yaml": {Data: []byte(data)}}, "cat.yaml")
	if err != nil {
		t.Fatalf("LoadFile error = %v", err)
	}
	if got := strings.Join(c.ReleaseNames(), ","); got != "1.4" {
		t.Errorf("releases = %s", got)
	}
}

func FuzzLoad(f *testing.F) {
	f.Add([]byte(header + "kind: ReleaseCatalog\nreleases:\n" + rel("1.4", "")))
	f.Add([]byte(comps))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Load(fstest.MapFS{"a.yaml": {Data: data}, "b.yaml": {Data: []byte(comps)}})
		if err == nil && len(c.Releases) == 0 {
			t.Fatal("Load returned a catalog without releases")
		}
	})
}

// TestWorkerHoldIsKnownOnlyWhereAChartShowsIt: the charts of the bundle
// (1.0, 1.2, 1.3, 1.4) cannot hold the MachineDeployments back, each with
// its source; the others are unknown, which counts as cannot.
func TestWorkerHoldIsKnownOnlyWhereAChartShowsIt(t *testing.T) {
	c, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	known := map[string]bool{"1.0": true, "1.2": true, "1.3": true, "1.4": true}
	for _, r := range c.Releases {
		name := r.Release.Short()
		if r.HoldsWorkers() {
			t.Errorf("release %s holds workers; no chart of the bundle shows it", name)
		}
		has := r.Capabilities != nil && r.Capabilities.HoldWorkers != nil
		if has != known[name] {
			t.Errorf("release %s: hold_workers given = %v, want %v", name, has, known[name])
		}
		if has && !strings.Contains(r.Capabilities.HoldWorkers.Source, "values.schema.json") {
			t.Errorf("release %s: hold_workers source %q does not name the chart's schema", name, r.Capabilities.HoldWorkers.Source)
		}
	}
}

// A chart taken from Git is told by the newest Kubernetes its
// _internal.k8s_version_map maps: each release's newest Kubernetes of the
// embedded catalog names that release, and a minor no release ends on
// names none.
func TestReleaseMappingNewestNamesTheReleaseWhoseChartEndsThere(t *testing.T) {
	c, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ minor, want string }{{"1.27", "1.0"}, {"1.29", "1.2"}, {"1.31", "1.4"}, {"1.35", "1.7"}} {
		got, ok := c.ReleaseMappingNewest(semver.MustParse(tt.minor))
		if !ok || got.Short() != tt.want {
			t.Errorf("ReleaseMappingNewest(%s) = %s, %v; want %s", tt.minor, got, ok, tt.want)
		}
	}
	if got, ok := c.ReleaseMappingNewest(semver.MustParse("1.20")); ok {
		t.Errorf("ReleaseMappingNewest(1.20) = %s, want none", got)
	}
}

// The minors completion offers for --workers: every minor a release runs,
// oldest first, each once, as the Kubernetes versions of the embedded
// catalog list them.
func TestKubernetesMinorsListsEachMinorOnceInOrder(t *testing.T) {
	c, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	got := c.KubernetesMinors()
	want := map[string]bool{}
	for _, r := range c.Releases {
		for _, v := range r.Kubernetes.Versions {
			want[v.Minor.Short()] = true
		}
	}
	if len(got) != len(want) {
		t.Fatalf("KubernetesMinors() = %v, want each of %d minors once", got, len(want))
	}
	for i, m := range got {
		if !want[m] {
			t.Errorf("KubernetesMinors() lists %s, which no release runs", m)
		}
		if i > 0 && semver.MustParse(got[i-1]).Compare(semver.MustParse(m)) >= 0 {
			t.Errorf("KubernetesMinors() = %v: %s before %s", got, got[i-1], m)
		}
	}
}
