package units_test

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"gitlab.com/sylva-projects/sylva-planner/envelope"
	"gitlab.com/sylva-projects/sylva-planner/internal/sylvacore"
	"gitlab.com/sylva-projects/sylva-planner/semver"
	"gitlab.com/sylva-projects/sylva-planner/units"
)

// refRelease is the release each bundle ref belongs to (main is the 1.4
// line). The values themselves name none.
var refRelease = map[string]string{"1.0.0": "1.0", "1.2.1": "1.2", "1.3.10": "1.3", "release-1.3": "1.3", "main": "1.4"}

// valueSets are the file sets a user audits: the chart's values alone, and
// with each cluster role's overlay.
var valueSets = [][]string{
	{"values.yaml"},
	{"values.yaml", "management.values.yaml"},
	{"values.yaml", "workload-cluster.values.yaml"},
}

func readChartFiles(t testing.TB, tree sylvacore.Tree, names ...string) []units.File {
	t.Helper()
	var files []units.File
	for _, n := range names {
		data, err := os.ReadFile(filepath.Join(tree.Chart(), n))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, units.File{Name: "charts/sylva-units/" + n, Data: data})
	}
	return files
}

type audited struct {
	v *units.Values
	r *units.Report
}

// audits caches auditTree's results per tree and file set: the reports are
// read, never modified, by the tests.
var audits sync.Map

// auditTree reads the tree's values files literally and audits them for
// the ref's release, once per test binary.
func auditTree(t testing.TB, tree sylvacore.Tree, names ...string) (*units.Values, *units.Report) {
	t.Helper()
	key := tree.Dir + "|" + strings.Join(names, "+")
	if a, ok := audits.Load(key); ok {
		return a.(audited).v, a.(audited).r
	}
	v, r := auditTreeFresh(t, tree, names...)
	audits.Store(key, audited{v, r})
	return v, r
}

func auditTreeFresh(t testing.TB, tree sylvacore.Tree, names ...string) (*units.Values, *units.Report) {
	t.Helper()
	v, err := units.Parse(readChartFiles(t, tree, names...)...)
	if err != nil {
		t.Fatalf("%s %v: Parse() error = %v", tree.Ref, names, err)
	}
	p, catVersion := policy(t)
	in := units.AuditInput{Values: v, Policy: p, ToolVersion: "test", CatalogVersion: catVersion}
	if rel, ok := refRelease[tree.Ref]; ok {
		in.Release = semver.MustParse(rel)
	} else {
		in.ReleaseUnknown = "a checkout names no release"
	}
	r, err := units.Audit(in)
	if err != nil {
		t.Fatalf("%s %v: Audit() error = %v", tree.Ref, names, err)
	}
	return v, r
}

// TestRealValuesAuditOnEveryRef reads every values set of every ref
// literally and audits it: no error, gotpl listed as unresolved, and every
// format written twice gives the same bytes.
func TestRealValuesAuditOnEveryRef(t *testing.T) {
	for _, tree := range sylvacore.Trees(t) {
		for _, set := range valueSets {
			t.Run(tree.Ref+"/"+strings.Join(set, "+"), func(t *testing.T) {
				v, r := auditTree(t, tree, set...)
				if len(v.Units) < 50 {
					t.Errorf("%d units, want the chart's (more than 50)", len(v.Units))
				}
				if v.Resolution != units.ResolutionLiteral || len(r.Unresolved) == 0 {
					t.Errorf("resolution %s with %d unresolved entries, want literal with the chart's gotpl listed", v.Resolution, len(r.Unresolved))
				}
				_, r2 := auditTreeFresh(t, tree, set...)
				for _, w := range []func(*units.Report, *bytes.Buffer) error{
					func(r *units.Report, b *bytes.Buffer) error { return envelope.WriteJSON(b, r.Document()) },
					func(r *units.Report, b *bytes.Buffer) error { return r.WriteTable(b) },
					func(r *units.Report, b *bytes.Buffer) error { return r.WriteMarkdown(b) },
				} {
					var a, b bytes.Buffer
					if err := w(r, &a); err != nil {
						t.Fatal(err)
					}
					if err := w(r2, &b); err != nil {
						t.Fatal(err)
					}
					if !bytes.Equal(a.Bytes(), b.Bytes()) {
						t.Errorf("two audits of the same values differ")
					}
					if !strings.Contains(a.String(), "depends_on") {
						t.Errorf("the report does not list the unresolved depends_on entries:\n%.500s", a.String())
					}
				}
			})
		}
	}
}

// TestRealValuesUnresolvedEntries checks the gotpl constructs that made
// the literal reading fail before, each on the refs that have it.
func TestRealValuesUnresolvedEntries(t *testing.T) {
	tests := []struct {
		name  string
		ref   string
		files []string
		unit  string
		field string
		kind  units.UnresolvedKind
	}{
		{"a whole depends_on written as gotpl (1.0.0)", "1.0.0", valueSets[0], "capi-providers-pivot-ready", "depends_on", units.UnresolvedDependsOn},
		{"a whole depends_on written as gotpl (1.2.1)", "1.2.1", valueSets[0], "capi-providers-pivot-ready", "depends_on", units.UnresolvedDependsOn},
		{"a gotpl unit_templates entry (1.3.10)", "1.3.10", valueSets[0], "calico", "unit_templates[0]", units.UnresolvedUnitTemplate},
		{"a gotpl unit_templates entry (main)", "main", valueSets[0], "calico", "unit_templates[0]", units.UnresolvedUnitTemplate},
		{"a gotpl depends_on key", "main", valueSets[0], "harbor", "depends_on[{{ .Values._internal.default_storage_class_unit }}]", units.UnresolvedDependencyKey},
		{"a gotpl enabled_conditions entry", "main", valueSets[0], "alertmanager-config", "enabled_conditions[0]", units.UnresolvedCondition},
		{"a gotpl depends_on of the management overlay", "main", valueSets[1], "capi-providers-pivot-ready", "depends_on", units.UnresolvedDependsOn},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tree := sylvacore.At(t, tt.ref)
			if tree.Ref != tt.ref {
				t.Skipf("needs the bundle's %s", tt.ref)
			}
			_, r := auditTree(t, tree, tt.files...)
			i := slices.IndexFunc(r.Unresolved, func(u units.Unresolved) bool { return u.Unit == tt.unit && u.Field == tt.field })
			if i < 0 {
				t.Fatalf("no unresolved entry %s %s among %d", tt.unit, tt.field, len(r.Unresolved))
			}
			if got := r.Unresolved[i]; got.Kind != tt.kind || !strings.Contains(got.Template, "{{") {
				t.Errorf("unresolved %s %s = %+v, want kind %s and its gotpl", tt.unit, tt.field, got, tt.kind)
			}
		})
	}
}

// TestRealValuesDependencyGraph checks namespace/unit keys and conditional
// dependencies on the real graph.
func TestRealValuesDependencyGraph(t *testing.T) {
	t.Run("a namespace/unit key with a gotpl value names the unit, conditionally", func(t *testing.T) {
		tree := sylvacore.At(t, "1.0.0")
		if tree.Ref != "1.0.0" {
			t.Skip("needs the bundle's 1.0.0")
		}
		v, _ := auditTree(t, tree, "values.yaml")
		c, _ := v.Unit("cluster")
		f, ok := c.DependsOnUnit("os-image-server")
		if !ok || !f.IsTemplate() {
			t.Errorf("cluster depends on os-image-server = %v %+v, want a conditional dependency through sylva-system/os-image-server", ok, f)
		}
	})
	t.Run("a workload cluster's units depend on the management cluster's through sylva-system/", func(t *testing.T) {
		tree := sylvacore.At(t, "1.0.0")
		if tree.Ref != "1.0.0" {
			t.Skip("needs the bundle's 1.0.0")
		}
		v, _ := auditTree(t, tree, valueSets[2]...)
		var keys []string
		for _, u := range v.Units {
			for _, d := range u.DependsOn {
				if d.Namespace == "sylva-system" && d.Unit == "rancher" {
					keys = append(keys, u.Name+"->"+d.Key)
				}
			}
		}
		if len(keys) == 0 {
			t.Errorf("no unit depends on sylva-system/rancher, want the workload cluster's rancher import")
		}
	})
	t.Run("a cleanup unit's dependents on main are conditional", func(t *testing.T) {
		tree := sylvacore.At(t, "main")
		if tree.Ref != "main" {
			t.Skip("needs the bundle's main")
		}
		_, r := auditTree(t, tree, valueSets[1]...)
		i := slices.IndexFunc(r.Units, func(u units.AuditedUnit) bool { return u.Name == "k8s-gateway-cleanup" })
		if i < 0 {
			t.Fatal("k8s-gateway-cleanup not listed")
		}
		u := r.Units[i]
		if !slices.Contains(u.Dependents, "k8s-gateway") || !slices.Contains(u.ConditionalDependents, "k8s-gateway") {
			t.Errorf("k8s-gateway-cleanup dependents %v (conditional %v), want k8s-gateway, conditional", u.Dependents, u.ConditionalDependents)
		}
	})
}

// untrackedOnRefs is what the bundle's refs say, read from them: one_shot
// units, and units whose info says when they go. The release is read from
// the text ("removed after N" is from-(N-1), "removed in N" from-(N-2)); a
// one_shot unit that says nothing gets from-X.Y.
var untrackedOnRefs = map[string]map[string]string{
	"1.0.0": {},
	"1.2.1": {
		// "Should be removed in 1.2+ versions of Sylva"
		"kyverno-metallb-annotations": "from-1.0",
		// "it will be removed after sylva 1.2 release"
		"single-replica-storageclass": "from-1.1",
	},
	"1.3.10":      {"single-replica-storageclass": "from-1.1"},
	"release-1.3": {"single-replica-storageclass": "from-1.1"},
	"main": {
		"cluster-pause": "from-X.Y", // one_shot, a workaround with no end date
		// one_shot, "This unit can be removed after next release": no release named
		"cluster-vip-fix-lbclass": "from-X.Y",
		// one_shot, "(This unit should be removed after Sylva 1.3)"
		"ingress-nginx-cleanup": "from-1.2",
		"k8s-gateway-cleanup":   "from-1.2",
		// one_shot, "(This unit will be removed after Sylva 1.4)"
		"minio-logging-cleanup":    "from-1.3",
		"minio-monitoring-cleanup": "from-1.3",
		// one_shot, a workaround for the Flux 2.4 → 2.5 transition
		"minio-logging-patch-healthcheckexprs":    "from-X.Y",
		"minio-monitoring-patch-healthcheckexprs": "from-X.Y",
	},
}

// untrackedByOverlay are the one_shot units each overlay adds on main.
var untrackedByOverlay = map[string]map[string]string{
	"management.values.yaml":       {"capi-providers-pivot-ready": "from-X.Y", "cluster-import-legacy-cleanup": "from-X.Y"},
	"workload-cluster.values.yaml": {"cluster-import": "from-X.Y", "cluster-import-init": "from-X.Y"},
}

func TestRealValuesUntrackedTransitionalUnits(t *testing.T) {
	for _, tree := range sylvacore.Trees(t) {
		want, ok := untrackedOnRefs[tree.Ref]
		if !ok {
			continue
		}
		for _, set := range valueSets {
			t.Run(tree.Ref+"/"+strings.Join(set, "+"), func(t *testing.T) {
				_, r := auditTree(t, tree, set...)
				got := map[string]string{}
				for _, u := range r.Units {
					if u.State == units.StateUntracked {
						got[u.Name] = strings.TrimSuffix(strings.TrimPrefix(u.SuggestedMetadata, "info: {transitional-unit: "), "}")
					}
				}
				w := maps(want)
				if tree.Ref == "main" && len(set) > 1 {
					for k, v := range untrackedByOverlay[set[1]] {
						w[k] = v
					}
				}
				if diff := cmp.Diff(w, got); diff != "" {
					t.Errorf("untracked units (-want +got):\n%s", diff)
				}
			})
		}
	}
}

// TestRealValuesEveryRemovalTextIsFound scans each ref's values for the
// removal texts independently of the audit: every unit whose description
// or details says "removed after/in X.Y", and every unit whose own values
// set one_shot: true, is listed as untracked.
func TestRealValuesEveryRemovalTextIsFound(t *testing.T) {
	removal := regexp.MustCompile(`(?i)removed (after|in) (sylva )?\d+\.\d+`)
	for _, tree := range sylvacore.Trees(t) {
		t.Run(tree.Ref, func(t *testing.T) {
			v, r := auditTree(t, tree, valueSets[1]...)
			listed := map[string]bool{}
			for _, u := range r.Units {
				listed[u.Name] = u.State == units.StateUntracked
			}
			for _, u := range v.Units {
				text := strings.Join(strings.Fields(u.Info.Description+" "+u.Info.Details), " ")
				if (removal.MatchString(text) || u.OneShot.IsTrue()) && !listed[u.Name] {
					t.Errorf("%s (one_shot %v, info %.120q) is not listed as untracked", u.Name, u.OneShot.IsTrue(), text)
				}
			}
		})
	}
}

func maps(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
