package helmengine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"helm.sh/helm/v3/pkg/action"
	"helm.sh/helm/v3/pkg/chart/loader"
	helmvalues "helm.sh/helm/v3/pkg/cli/values"
	"sigs.k8s.io/yaml"

	"gitlab.com/sylva-projects/sylva-planner/internal/golden"
	"gitlab.com/sylva-projects/sylva-planner/internal/sylvacore"
	"gitlab.com/sylva-projects/sylva-planner/internal/valuestest"
	"gitlab.com/sylva-projects/sylva-planner/yamldoc"
)

// conformanceNamespace is the namespace `helm template` uses without -n or
// a kubeconfig, as sylva-core's CI runs it.
const conformanceNamespace = "default"

// chartCase is one test-values folder of sylva-units, as sylva-core's
// tools/validation/helm-template-yamllint.sh runs it: every *.y*ml of the
// folder but test-spec.yaml, sorted, as --values; test-spec.yaml with
// require-failure: true marks a case that must fail.
type chartCase struct {
	name     string
	files    []string
	negative bool
	// missing are files of the folder that do not exist here (a dangling
	// symlink to a file sylva-core's CI generates first).
	missing []string
}

func chartCases(t *testing.T, chartDir string) []chartCase {
	t.Helper()
	dirs, err := os.ReadDir(filepath.Join(chartDir, "test-values"))
	if err != nil {
		t.Fatal(err)
	}
	var out []chartCase
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		dir := filepath.Join(chartDir, "test-values", d.Name())
		c := chartCase{name: d.Name()}
		matches, err := filepath.Glob(filepath.Join(dir, "*.y*ml"))
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(matches)
		for _, f := range matches {
			if filepath.Base(f) == "test-spec.yaml" {
				var spec struct {
					RequireFailure bool `json:"require-failure"`
				}
				if err := yaml.Unmarshal(valuestest.ReadFile(t, f), &spec); err != nil {
					t.Fatalf("%s: %v", f, err)
				}
				c.negative = spec.RequireFailure
				continue
			}
			if _, err := os.Stat(f); err != nil {
				c.missing = append(c.missing, filepath.Base(f))
				continue
			}
			c.files = append(c.files, f)
		}
		out = append(out, c)
	}
	return out
}

var (
	helmLogOnce sync.Once
	// unparsable records the cases whose Secret Helm renders as text that
	// is not valid YAML.
	unparsable sync.Map
)

// helmTemplate renders the whole chart with Helm's install action as
// `helm template sylva-units CHART --skip-schema-validation --values …`
// does, and returns the values of the sylva-units-values Secret.
func helmTemplate(ctx context.Context, chartDir string, files []string) (map[string]any, error) {
	// Helm's coalescing logs type conflicts of the test values on the
	// standard logger; they are expected (sylva-core's CI filters them).
	helmLogOnce.Do(func() { log.SetOutput(io.Discard) })
	ch, err := loader.Load(chartDir)
	if err != nil {
		return nil, err
	}
	vals, err := (&helmvalues.Options{ValueFiles: files}).MergeValues(nil)
	if err != nil {
		return nil, err
	}
	inst := action.NewInstall(&action.Configuration{Log: func(string, ...any) {}})
	inst.DryRun, inst.ClientOnly, inst.Replace = true, true, true
	inst.ReleaseName, inst.Namespace = DefaultReleaseName, conformanceNamespace
	inst.SkipSchemaValidation = true
	rel, err := inst.RunWithContext(ctx, ch, vals)
	if err != nil {
		return nil, err
	}
	for _, doc := range yamldoc.Split([]byte(rel.Manifest)) {
		var obj struct {
			Kind     string `json:"kind"`
			Metadata struct {
				Name string `json:"name"`
			} `json:"metadata"`
			StringData map[string]string `json:"stringData"`
		}
		if err := yaml.Unmarshal(doc, &obj); err != nil {
			return nil, err
		}
		if obj.Kind == "Secret" && obj.Metadata.Name == ValuesSecret {
			text := obj.StringData["values"]
			vals, err := Parse([]byte(text))
			if err == nil {
				return vals, nil
			}
			// The chart's unshield-raw can leave a "(raw)" string
			// unquoted YAML flow syntax ({{ a {42:42} }}): read the
			// text shielded again, then unshield the strings.
			shielded, err2 := Parse([]byte(strings.ReplaceAll(text, "{{", RawShield)))
			if err2 != nil {
				return nil, fmt.Errorf("the %s Secret: %w", ValuesSecret, err)
			}
			unparsable.Store(chartDir+" "+strings.Join(files, " "), err.Error())
			return unshieldRaw(shielded).(map[string]any), nil
		}
	}
	return nil, fmt.Errorf("helm template rendered no %s Secret", ValuesSecret)
}

// leaves flattens a values tree into path → leaf (lists also give their
// length, so that a shorter list is a difference too).
func leaves(v any, p string, out map[string]any) map[string]any {
	switch t := v.(type) {
	case map[string]any:
		if len(t) == 0 {
			out[p] = "{}"
		}
		for k, x := range t {
			leaves(x, ChildPath(p, k), out)
		}
	case []any:
		out[p+"#len"] = len(t)
		for i, x := range t {
			leaves(x, fmt.Sprintf("%s[%d]", p, i), out)
		}
	default:
		out[p] = v
	}
	return out
}

// randomized lists the leaves that differ between two renders of the same
// inputs: what the chart draws at random (randAlphaNum passwords and what
// is derived from them, htpasswd/bcrypt hashes, now).
func randomized(a, b map[string]any) []string {
	var out []string
	for k, v := range a {
		if w, ok := b[k]; !ok || !cmp.Equal(v, w) {
			out = append(out, k)
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// TestChartValuesMatchHelm renders every test-values case of every
// sylva-core ref with Chart.Values (the chart reduced to its values Secret)
// and compares the Secret's values with what Helm's own install action
// (`helm template`) renders for the same case, except the leaves the chart
// randomizes; negative cases must fail in both.
//
// Helm's side of a case is read from testdata/helm-reference.txt when the
// file has it for the same tree commit and Helm and sprig versions: a
// fingerprint of Helm's values (every leaf, the randomized ones left out)
// and whether Helm failed. A case whose reference is missing or stale, or
// whose values do not match it, is rendered with Helm then and there and
// compared leaf by leaf, as `go test ./values/helmengine -run TestChartValuesMatchHelm
// -update` does for every case to rewrite the reference. So each case costs
// one render of ours, not one of Helm's (10–40 s) and two of ours.
func TestChartValuesMatchHelm(t *testing.T) {
	if testing.Short() {
		t.Skip("renders every sylva-core test-values case (minutes); run without -short")
	}
	start := time.Now()
	ref := loadHelmReference(t)
	var mu sync.Mutex
	var masked []string
	live := 0
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		slices.Sort(masked)
		t.Logf("conformance: %s wall, %d case(s) rendered with Helm; randomized leaves masked: %s", time.Since(start).Round(time.Second), live, strings.Join(slices.Compact(masked), ", "))
		if *golden.Update {
			ref.write(t)
		}
	})
	for _, tr := range sylvacore.Trees(t) {
		chartDir := tr.Chart()
		ours, err := LoadChart(chartDir)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range chartCases(t, chartDir) {
			t.Run(tr.Ref+"/"+c.name, func(t *testing.T) {
				t.Parallel()
				if len(c.missing) > 0 {
					t.Logf("not in this tree (sylva-core's CI generates them): %s", strings.Join(c.missing, ", "))
				}
				ctx := context.Background()
				files := make([]File, 0, len(c.files))
				for _, f := range c.files {
					files = append(files, File{Name: f, Data: valuestest.ReadFile(t, f)})
				}
				opts := ChartOptions{Namespace: conformanceNamespace, SkipSchemaValidation: true}
				name, key := tr.Ref+"/"+c.name, referenceKey(tr, c.name)
				got, oerr := ours.Values(ctx, files, opts)
				if r, ok := ref.get(name); ok && r.key == key && !*golden.Update {
					if r.helmFails {
						checkBothFail(t, ctx, ours, files, opts, c, oerr, errors.New(r.helmError))
						return
					}
					if oerr != nil {
						t.Fatalf("Chart.Values fails, helm template does not (per testdata/helm-reference.txt): %v", oerr)
					}
					g := leaves(got.Values, "values", map[string]any{})
					for _, k := range r.masked {
						delete(g, k)
					}
					if fingerprint(g) == r.sum {
						mu.Lock()
						masked = append(masked, r.masked...)
						mu.Unlock()
						return
					}
					t.Logf("the values differ from the reference of Helm's; rendering with Helm to show how")
				}
				mu.Lock()
				live++
				mu.Unlock()
				want, herr := helmTemplate(ctx, chartDir, c.files)
				if herr != nil {
					ref.put(name, helmReference{key: key, helmFails: true, helmError: firstLine(herr.Error())})
					checkBothFail(t, ctx, ours, files, opts, c, oerr, herr)
					return
				}
				if oerr != nil {
					t.Fatalf("Chart.Values fails, helm template does not: %v", oerr)
				}
				if c.negative {
					t.Logf("negative case renders with helm template and Chart.Values alike (it fails later in sylva-core's CI, in yamllint)")
				}
				again, err := ours.Values(ctx, files, opts)
				if err != nil {
					t.Fatal(err)
				}
				if msg, ok := unparsable.Load(chartDir + " " + strings.Join(c.files, " ")); ok {
					t.Logf("helm template's %s Secret is not valid YAML (%v); compared with its text read shielded", ValuesSecret, msg)
				}
				g, a, w := leaves(got.Values, "values", map[string]any{}), leaves(again.Values, "values", map[string]any{}), leaves(want, "values", map[string]any{})
				mask := randomized(g, a)
				for _, k := range mask {
					delete(g, k)
					delete(w, k)
				}
				mu.Lock()
				masked = append(masked, mask...)
				mu.Unlock()
				if diff := cmp.Diff(w, g); diff != "" {
					t.Errorf("Chart.Values differs from helm template's %s Secret (-helm +ours):\n%s", ValuesSecret, diff)
					return
				}
				ref.put(name, helmReference{key: key, sum: fingerprint(w), masked: mask})
				if !*golden.Update {
					t.Errorf("testdata/helm-reference.txt has no up-to-date reference for %s (Helm agrees with ours): run `go test ./values/helmengine -run TestChartValuesMatchHelm -update` and commit it", name)
				}
			})
		}
	}
}

// checkBothFail checks a case Helm fails to render: ours must fail too,
// at least with Validate (the reduced render skips the checks the chart
// makes while it renders the units).
func checkBothFail(t *testing.T, ctx context.Context, ours *Chart, files []File, opts ChartOptions, c chartCase, oerr, herr error) {
	t.Helper()
	switch {
	case oerr != nil:
		if !c.negative {
			t.Logf("helm template fails on this positive case too: %v", herr)
		}
	case c.negative:
		vopts := opts
		vopts.Validate = true
		if _, verr := ours.Values(ctx, files, vopts); verr == nil {
			t.Fatalf("helm template fails, Chart.Values does not, even with Validate.\nhelm: %v", herr)
		}
		t.Logf("fails with Validate only (a check made while rendering the units): %v", firstLine(herr.Error()))
	default:
		t.Fatalf("helm template fails on a positive case, Chart.Values does not.\nhelm: %v", herr)
	}
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
