package ci

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"sigs.k8s.io/yaml"

	"gitlab.com/sylva-projects/sylva-planner/catalog"
	"gitlab.com/sylva-projects/sylva-planner/planner"
	"gitlab.com/sylva-projects/sylva-planner/skew"
)

// APIVersion and Kind identify the JSON document of a matrix.
const (
	APIVersion = "planner.sylva/v1alpha1"
	Kind       = "MigrationMatrix"
)

// Target is what CI tests migrations to: a branch and the release it
// carries ("main" carrying 1.7-pre, "release-1.6" carrying 1.6).
type Target struct {
	Branch  string
	Release skew.Version
}

// ParseTarget reads --target: "main" (release given by the caller),
// "release-1.6", "1.6" or "1.7-pre".
func ParseTarget(s string) (branch string, release skew.Version, err error) {
	switch {
	case s == "main":
		return "main", skew.Version{}, nil
	case strings.HasPrefix(s, "release-"):
		v, err := skew.Parse(strings.TrimPrefix(s, "release-"))
		if err != nil || v.HasPatch || v.IsPrerelease() {
			return "", skew.Version{}, fmt.Errorf("target %q: want main, release-X.Y, X.Y or X.Y-pre", s)
		}
		return s, v, nil
	}
	v, err := skew.Parse(s)
	if err != nil {
		return "", skew.Version{}, fmt.Errorf("target %q: want main, release-X.Y, X.Y or X.Y-pre", s)
	}
	if v.IsPrerelease() {
		return "main", v, nil
	}
	return "release-" + v.Short(), v, nil
}

// Scenario is one migration CI runs: deploy the initial revision, upgrade
// to the target, and expect these passes.
type Scenario struct {
	Name            string                   `json:"name"`
	From            string                   `json:"from"`
	InitialRevision string                   `json:"initialRevision"`
	Passes          int                      `json:"passes"`
	Route           []string                 `json:"route"`
	ExpectedStatus  []planner.ExpectedStatus `json:"expectedStatus"`
	K8sVersions     []string                 `json:"k8sVersions"`
	Verdict         planner.Verdict          `json:"verdict"`
}

// Matrix is the list of scenarios for a target.
type Matrix struct {
	APIVersion string   `json:"apiVersion"`
	Kind       string   `json:"kind"`
	Metadata   Metadata `json:"metadata"`
	Target     string   `json:"target"`
	// Release is what the target branch carries ("1.7-pre"); To is the
	// catalog release it is planned as ("1.7").
	Release   string     `json:"release"`
	To        string     `json:"to"`
	Scenarios []Scenario `json:"scenarios"`
}

// Metadata says what computed the matrix.
type Metadata struct {
	ToolVersion    string `json:"toolVersion"`
	CatalogVersion string `json:"catalogVersion"`
	AsOf           string `json:"asOf"`
	// Source is "catalog" or the sylva-core checkout's branches.
	Source string `json:"source"`
}

// Options configure Compute.
type Options struct {
	ToolVersion string
	AsOf        time.Time
	// Branches are the release branches known to exist (from a sylva-core
	// checkout); nil means every release of the catalog has one.
	Branches map[string]bool
	Source   string
}

// Compute lists a scenario per supported upgrade source of the target
// release, sorted newest source first (the n-1 scenario, then n-2).
func Compute(cat *catalog.Catalog, target Target, opts Options) (*Matrix, error) {
	rel, ok := cat.Release(target.Release)
	if !ok {
		return nil, fmt.Errorf("target release %s is not in the catalog (known: %s … %s)", target.Release, cat.Oldest(), cat.Newest())
	}
	m := &Matrix{
		APIVersion: APIVersion, Kind: Kind, Target: target.Branch, Release: target.Release.String(), To: rel.Release.String(),
		Metadata:  Metadata{ToolVersion: opts.ToolVersion, CatalogVersion: cat.Version, AsOf: opts.AsOf.UTC().Format(time.DateOnly), Source: opts.Source},
		Scenarios: []Scenario{},
	}
	for i := len(rel.UpgradeFrom) - 1; i >= 0; i-- {
		from := rel.UpgradeFrom[i]
		branch := "release-" + from.Short()
		if opts.Branches != nil && !opts.Branches[branch] {
			continue
		}
		p, err := planner.Compute(planner.Input{Catalog: cat, From: from, To: rel.Release, AsOf: opts.AsOf, ToolVersion: opts.ToolVersion, FromSource: "flag"})
		if err != nil {
			return nil, err
		}
		s := Scenario{
			Name: "upgrade-from-" + branch, From: from.String(), InitialRevision: branch,
			Passes: len(p.Passes), Route: p.Route, Verdict: p.Verdict, ExpectedStatus: []planner.ExpectedStatus{},
		}
		for _, ps := range p.Passes {
			// A development branch writes its own sylva_release ("1.7-pre").
			if target.Release.IsPrerelease() && ps.ExpectedStatus.SylvaRelease == rel.Release.String() {
				ps.ExpectedStatus.SylvaRelease = target.Release.String()
			}
			s.ExpectedStatus = append(s.ExpectedStatus, ps.ExpectedStatus)
			s.K8sVersions = append(s.K8sVersions, ps.ControlPlane.To)
		}
		m.Scenarios = append(m.Scenarios, s)
	}
	return m, nil
}

// WriteJSON writes the matrix as indented JSON.
func (m *Matrix) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(m)
}

// WriteMarkdown writes the matrix as a table for a merge request.
func (m *Matrix) WriteMarkdown(w io.Writer) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "# Migration tests for %s (Sylva %s)\n\n", m.Target, m.Release)
	if len(m.Scenarios) == 0 {
		fmt.Fprintln(bw, "No supported upgrade source has a release branch: nothing to test.")
		return bw.Flush()
	}
	fmt.Fprintln(bw, "| scenario | initial revision | passes | Kubernetes per pass | sylva-units-status after each pass | verdict |")
	fmt.Fprintln(bw, "|---|---|---|---|---|---|")
	for _, s := range m.Scenarios {
		var st []string
		for i, e := range s.ExpectedStatus {
			st = append(st, fmt.Sprintf("%d: `%s`/`%s`", i+1, e.SylvaRelease, e.AdditionalReconciliationRequired))
		}
		fmt.Fprintf(bw, "| %s | `%s` | %d | %s | %s | %s |\n", s.Name, s.InitialRevision, s.Passes, strings.Join(s.K8sVersions, " → "), strings.Join(st, "<br>"), s.Verdict)
	}
	return bw.Flush()
}

// WriteGitLabCI writes a GitLab CI child pipeline: one job per scenario,
// extending the job template named extends, with the variables Sylva's CI
// uses to deploy an initial revision and upgrade it to the pipeline's own
// revision (empty *_UPDATE_REVISION).
func (m *Matrix) WriteGitLabCI(w io.Writer, extends string) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "# Migration tests to %s (Sylva %s), generated by sylva-planner ci-matrix\n", m.Target, m.Release)
	fmt.Fprintf(bw, "# from catalog %s; regenerate rather than edit.\n", m.Metadata.CatalogVersion)
	if len(m.Scenarios) == 0 {
		// GitLab refuses an empty child pipeline: keep one job that says why.
		fmt.Fprint(bw, "no-migration-to-test:\n  script:\n    - echo \"no supported upgrade source has a release branch\"\n")
		return bw.Flush()
	}
	for _, s := range m.Scenarios {
		job := map[string]any{
			"extends": []string{extends},
			"variables": map[string]string{
				"MGMT_INITIAL_REVISION":         s.InitialRevision,
				"WC_INITIAL_REVISION":           s.InitialRevision,
				"MGMT_UPDATE_REVISION":          "",
				"WC_UPDATE_REVISION":            "",
				"SYLVA_PLANNER_FROM":            s.From,
				"SYLVA_PLANNER_TO":              m.Release,
				"SYLVA_PLANNER_EXPECTED_PASSES": fmt.Sprint(s.Passes),
				"SYLVA_PLANNER_EXPECTED_K8S":    strings.Join(s.K8sVersions, " "),
				"SYLVA_PLANNER_VERIFY_COMMAND":  fmt.Sprintf("sylva-planner verify --from %s --to %s", s.From, m.Release),
			},
		}
		b, err := yaml.Marshal(map[string]any{s.Name: job})
		if err != nil {
			return err
		}
		fmt.Fprintln(bw)
		bw.Write(b)
	}
	return bw.Flush()
}

// WithPre returns the development version of release v ("1.7" → "1.7-pre").
func WithPre(v skew.Version) skew.Version {
	return skew.MustParse(v.Short() + "-pre")
}
