package ci

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	yamlv3 "go.yaml.in/yaml/v3"
	"sigs.k8s.io/yaml"

	"gitlab.com/sylva-projects/sylva-planner/catalog"
	"gitlab.com/sylva-projects/sylva-planner/cell"
	"gitlab.com/sylva-projects/sylva-planner/envelope"
	"gitlab.com/sylva-projects/sylva-planner/planner"
	"gitlab.com/sylva-projects/sylva-planner/semver"
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
	Release semver.Version
}

// ParseTarget reads --target: "main" (release given by the caller),
// "release-1.6", "1.6" or "1.7-pre". A patch ("1.6.2"), build metadata or
// a leading "v" is refused: a branch carries a minor, and the release is
// written into the jobs as given.
func ParseTarget(s string) (branch string, release semver.Version, err error) {
	errWant := errors.New("want main, release-X.Y, X.Y or X.Y-pre, such as release-1.6")
	if s == "main" {
		return "main", semver.Version{}, nil
	}
	v, err := semver.Parse(strings.TrimPrefix(s, "release-"))
	if err != nil || v.HasPatch || v.Build != "" || strings.HasPrefix(strings.TrimPrefix(s, "release-"), "v") {
		return "", semver.Version{}, errWant
	}
	switch {
	case strings.HasPrefix(s, "release-"):
		if v.IsPrerelease() {
			return "", semver.Version{}, errWant
		}
		return s, v, nil
	case v.IsPrerelease():
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
	// Template is the checkout's scenario template the job extends, with
	// Conventions; File is the CI file that defines it.
	Template string `json:"template,omitempty"`
	File     string `json:"-"`
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
	conv      *Conventions
	// unbranched are the supported sources left out for want of a
	// release branch (Options.Branches), newest first.
	unbranched []string
}

// Metadata says what computed the matrix: the metadata of every document,
// and where the releases came from.
type Metadata struct {
	envelope.Metadata
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
	// Conventions, when set, make the scenarios those of the checkout's
	// own CI: named and started like its upgrade scenario templates.
	Conventions *Conventions
}

// Conventions are what the jobs of a sylva-core checkout's CI look like:
// its templates, and the infrastructure, bootstrap provider and node OS a
// deployment job names ("☁capo 🚀rke2 🎬sylva-upgrade-from-1.3.x 🐧ubuntu").
type Conventions struct {
	Templates *Templates
	Infra     string
	Bootstrap string
	OS        string
}

// Compute lists a scenario per supported upgrade source of the target
// release, sorted newest source first (the n-1 scenario, then n-2).
func Compute(cat *catalog.Catalog, target Target, opts Options) (*Matrix, error) {
	rel, ok := cat.Release(target.Release)
	switch {
	case !ok && cat.IsPastNewest(target.Release):
		// The caller names --target.
		return nil, cat.RefusePastNewest("", target.Release, "ci-matrix needs its supported upgrade sources")
	case !ok:
		return nil, errors.New(cat.Unknown(target.Release))
	}
	m := &Matrix{
		APIVersion: APIVersion, Kind: Kind, Target: target.Branch, Release: target.Release.String(), To: rel.Release.String(),
		Metadata:  Metadata{Metadata: envelope.NewMetadata(opts.ToolVersion, cat.Version, opts.AsOf), Source: opts.Source},
		Scenarios: []Scenario{},
	}
	m.conv = opts.Conventions
	for i := len(rel.UpgradeFrom) - 1; i >= 0; i-- {
		from := rel.UpgradeFrom[i]
		branch := "release-" + from.Short()
		name, revision, tpl := "upgrade-from-"+branch, branch, UpgradeScenario{}
		if c := opts.Conventions; c != nil {
			var ok bool
			if tpl, ok = c.Templates.ForSource(from); ok {
				// The checkout's own scenario for this source: its name and
				// initial revision (a branch, or a tag such as 1.2.1).
				name, revision = tpl.Scenario, tpl.InitialRevision
			} else if tpl, ok = c.Templates.DefaultUpgrade(); ok {
				// No scenario for this source yet: extend the default one
				// and set its initial revision.
				name = "sylva-upgrade-from-" + from.Short() + ".x"
			} else {
				return nil, fmt.Errorf("%s has no upgrade scenario template (a %s… job setting MGMT_INITIAL_REVISION)", CIDir, ScenarioPrefix)
			}
		}
		if opts.Branches != nil && !opts.Branches[revision] && revision == branch {
			m.unbranched = append(m.unbranched, from.String())
			continue
		}
		p, err := planner.Compute(planner.Input{Catalog: cat, From: from, To: rel.Release, AsOf: opts.AsOf, ToolVersion: opts.ToolVersion, FromSource: "flag"})
		if err != nil {
			return nil, err
		}
		s := Scenario{
			Name: name, From: from.String(), InitialRevision: revision, Template: tpl.Template, File: tpl.File,
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

// Document is the JSON and YAML form of the matrix (not the CI file: that is WriteGitLabCI), with its apiVersion,
// kind and metadata (envelope.WriteJSON and WriteYAML write it).
func (m *Matrix) Document() any { return m }

// WriteMarkdown writes the matrix as a table for a merge request. The
// scenario names and initial revisions, which a checkout's CI files give,
// are escaped (cell.Markdown and its kin): they show as written and start
// no heading, link, image or HTML.
func (m *Matrix) WriteMarkdown(w io.Writer) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "# Migration tests for %s\n\n", cell.Markdown(fmt.Sprintf("%s (Sylva %s)", m.Target, m.Release)))
	if len(m.Scenarios) == 0 {
		why := m.nothingToTest()
		fmt.Fprintf(bw, "%s.\n", cell.MarkdownSpans(strings.ToUpper(why[:1])+why[1:]))
		return bw.Flush()
	}
	fmt.Fprintln(bw, "| scenario | initial revision | passes | Kubernetes per pass | sylva-units-status after each pass | verdict |")
	fmt.Fprintln(bw, "|---|---|---|---|---|---|")
	for _, s := range m.Scenarios {
		var st []string
		for i, e := range s.ExpectedStatus {
			st = append(st, fmt.Sprintf("%d: %s/%s", i+1, cell.MarkdownCode(e.SylvaRelease), cell.MarkdownCode(e.AdditionalReconciliationRequired)))
		}
		fmt.Fprintf(bw, "| %s | %s | %d | %s | %s | %s |\n", cell.Markdown(s.Name), cell.MarkdownCode(s.InitialRevision), s.Passes, cell.Markdown(strings.Join(s.K8sVersions, " → ")), strings.Join(st, "<br>"), s.Verdict)
	}
	return bw.Flush()
}

// WriteGitLabCI writes a GitLab CI child pipeline: one job per scenario,
// extending the job template named extends, with the variables Sylva's CI
// uses to deploy an initial revision and upgrade it to the pipeline's own
// revision (empty *_UPDATE_REVISION). With Conventions, the jobs follow the
// checkout's CI instead (see writeConventions) and extends is not used.
func (m *Matrix) WriteGitLabCI(w io.Writer, extends string) error {
	if m.conv != nil && len(m.Scenarios) > 0 {
		return m.writeConventions(w)
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "# Migration tests to %s (Sylva %s), generated by sylva-planner ci-matrix\n", m.Target, m.Release)
	fmt.Fprintf(bw, "# from catalog %s; regenerate rather than edit.\n", m.commentCatalog())
	if len(m.Scenarios) == 0 {
		// GitLab refuses an empty child pipeline: keep one job that says why.
		fmt.Fprintln(bw)
		if err := writeYAML(bw, map[string]any{"no-migration-to-test": map[string]any{
			"variables": map[string]string{"SYLVA_PLANNER_REASON": m.nothingToTest()},
			"script":    []string{`echo "$SYLVA_PLANNER_REASON"`},
		}}); err != nil {
			return err
		}
		return bw.Flush()
	}
	for _, s := range m.Scenarios {
		job := map[string]any{
			"extends":   []string{extends},
			"variables": m.jobVariables(s, nil),
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

// commentCatalog is the catalog's version as a comment line of the CI
// file quotes it: on that line (a line break of a --catalog file's version
// would start YAML of its own), its controls shown (cell.Visible).
func (m *Matrix) commentCatalog() string {
	return cell.OneLine(cell.Visible(m.Metadata.CatalogVersion))
}

// nothingToTest says why the matrix has no scenario: the target supports
// no upgrade source, or none of its sources has a release branch in the
// checkout read.
func (m *Matrix) nothingToTest() string {
	if len(m.unbranched) == 0 {
		return fmt.Sprintf("Sylva %s supports no upgrade source in catalog %s: nothing to test", m.Release, m.Metadata.CatalogVersion)
	}
	return fmt.Sprintf("no upgrade source of Sylva %s (%s) has a release branch in the checkout: nothing to test", m.Release, strings.Join(m.unbranched, ", "))
}

// jobVariables are the variables of the job that tests scenario s: the
// revisions sylva-core's CI deploys and upgrades to, and what verify
// expects, over extra (the deployment variables of a sylva-core job).
func (m *Matrix) jobVariables(s Scenario, extra map[string]string) map[string]string {
	vars := map[string]string{
		"MGMT_INITIAL_REVISION":         s.InitialRevision,
		"WC_INITIAL_REVISION":           s.InitialRevision,
		"MGMT_UPDATE_REVISION":          "",
		"WC_UPDATE_REVISION":            "",
		"SYLVA_PLANNER_FROM":            s.From,
		"SYLVA_PLANNER_TO":              m.Release,
		"SYLVA_PLANNER_EXPECTED_PASSES": fmt.Sprint(s.Passes),
		"SYLVA_PLANNER_EXPECTED_K8S":    strings.Join(s.K8sVersions, " "),
		"SYLVA_PLANNER_VERIFY_COMMAND":  fmt.Sprintf("sylva-planner verify --from %s --to %s", s.From, m.Release),
	}
	maps.Copy(vars, extra)
	return vars
}

// writeConventions writes the jobs as sylva-core's own deployment jobs:
// named "☁INFRA 🚀BOOTSTRAP 🎬SCENARIO 🐧OS", extending the infrastructure
// template, the scenario template and .wait-publish-jobs (when the
// checkout has them), with the DEPLOYMENT_* variables its deployment
// pipelines read, the scenario's initial and update revisions, and the
// planner's expectations. The CI files that define those templates are
// included, so that the child pipeline resolves them.
func (m *Matrix) writeConventions(w io.Writer) error {
	c := m.conv
	infra := "." + c.Infra
	infraTpl, ok := c.Templates.Get(infra)
	if !ok {
		return fmt.Errorf("%s has no %s template for infrastructure %q", CIDir, infra, c.Infra)
	}
	files := map[string]bool{infraTpl.File: true}
	wait, hasWait := c.Templates.Get(".wait-publish-jobs")
	if hasWait {
		files[wait.File] = true
	}
	for _, s := range m.Scenarios {
		files[s.File] = true
	}
	var include []map[string]string
	for _, f := range slices.Sorted(maps.Keys(files)) {
		include = append(include, map[string]string{"local": f})
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "# Migration tests to %s (Sylva %s), generated by sylva-planner ci-matrix\n", m.Target, m.Release)
	fmt.Fprintf(bw, "# from catalog %s and the CI templates of %s; regenerate rather than edit.\n\n", m.commentCatalog(), m.Target)
	if err := writeYAML(bw, map[string]any{"include": include}); err != nil {
		return err
	}
	for _, s := range m.Scenarios {
		extends := []string{infra, s.Template}
		if hasWait {
			extends = append(extends, wait.Name)
		}
		name := fmt.Sprintf("☁%s 🚀%s 🎬%s 🐧%s", c.Infra, c.Bootstrap, s.Name, c.OS)
		job := map[string]any{
			"extends": extends,
			"variables": m.jobVariables(s, map[string]string{
				"DEPLOYMENT_INFRA_PROV":     c.Infra,
				"DEPLOYMENT_BOOTSTRAP_PROV": c.Bootstrap,
				"DEPLOYMENT_OS":             c.OS,
				"DEPLOYMENT_SCENARIO":       s.Name,
			}),
		}
		// The name is written by hand: the YAML encoder escapes emoji
		// outside the Basic Multilingual Plane, which a reader of the
		// pipeline would not recognise.
		key, _ := json.Marshal(name)
		fmt.Fprintf(bw, "\n%s:\n", key)
		var body bytes.Buffer
		if err := writeYAML(&body, job); err != nil {
			return err
		}
		for _, line := range strings.SplitAfter(body.String(), "\n") {
			if line != "" {
				bw.WriteString("  " + line)
			}
		}
	}
	return bw.Flush()
}

// writeYAML encodes v with sorted keys, two-space indents and Unicode kept
// as is (job names carry emoji).
func writeYAML(w io.Writer, v any) error {
	enc := yamlv3.NewEncoder(w)
	enc.SetIndent(2)
	if err := enc.Encode(v); err != nil {
		return err
	}
	return enc.Close()
}

// WithPre returns the development version of release v ("1.7" → "1.7-pre").
func WithPre(v semver.Version) semver.Version {
	return semver.MustParse(v.Short() + "-pre")
}
