package ci

import (
	"fmt"
	"io/fs"
	"maps"
	"path"
	"slices"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"gitlab.com/sylva-projects/sylva-planner/semver"
)

// CIDir is where sylva-core keeps its GitLab CI files.
const CIDir = ".gitlab/ci"

// ScenarioPrefix starts the name of every scenario template of sylva-core's
// CI (".scenario_sylva-upgrade-from-1.3.x"); a deployment job extends an
// infrastructure template (".capo"), a scenario template and, unless it
// deploys from sources, ".wait-publish-jobs".
const ScenarioPrefix = ".scenario_"

// Template is one hidden job (a name starting with ".") of the CI files.
type Template struct {
	Name string
	// File is the CI file that defines it, relative to the tree's root.
	File    string
	Extends []string
	// Variables are its own variables (not those it extends); values that
	// are not plain strings are left out.
	Variables map[string]string
	// Triggers is whether it starts a child pipeline of its own (trigger:
	// with an include:), as the infrastructure templates .capo and .capm3
	// start their deployment pipelines.
	Triggers bool
}

// Templates are the hidden jobs of a sylva-core tree's .gitlab/ci/*.yml.
type Templates struct {
	byName map[string]*Template
}

// ReadTemplates reads every top-level hidden job of the YAML files directly
// under .gitlab/ci of fsys. GitLab's own tags (!reference) are kept as
// opaque values.
func ReadTemplates(fsys fs.FS) (*Templates, error) {
	entries, err := fs.ReadDir(fsys, CIDir)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", CIDir, err)
	}
	t := &Templates{byName: map[string]*Template{}}
	for _, e := range entries {
		if e.IsDir() || (path.Ext(e.Name()) != ".yml" && path.Ext(e.Name()) != ".yaml") {
			continue
		}
		if err := t.readFile(fsys, path.Join(CIDir, e.Name())); err != nil {
			return nil, err
		}
	}
	if len(t.byName) == 0 {
		return nil, fmt.Errorf("%s: no job template", CIDir)
	}
	return t, nil
}

// readFile adds the top-level hidden jobs (.name: a map) of one file.
func (t *Templates) readFile(fsys fs.FS, file string) error {
	data, err := fs.ReadFile(fsys, file)
	if err != nil {
		return err
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil
	}
	root := doc.Content[0]
	for i := 0; i+1 < len(root.Content); i += 2 {
		name, body := root.Content[i].Value, root.Content[i+1]
		if strings.HasPrefix(name, ".") && body.Kind == yaml.MappingNode {
			t.byName[name] = templateOf(name, file, body)
		}
	}
	return nil
}

// templateOf reads what a hidden job's body says of it: the templates it
// extends, whether it triggers a child pipeline, its variables.
func templateOf(name, file string, body *yaml.Node) *Template {
	tpl := &Template{Name: name, File: file, Variables: map[string]string{}}
	for j := 0; j+1 < len(body.Content); j += 2 {
		switch v := body.Content[j+1]; body.Content[j].Value {
		case "extends":
			switch v.Kind {
			case yaml.ScalarNode:
				tpl.Extends = []string{v.Value}
			case yaml.SequenceNode:
				for _, x := range v.Content {
					tpl.Extends = append(tpl.Extends, x.Value)
				}
			default: // not a form GitLab accepts for extends
			}
		case "trigger":
			if v.Kind == yaml.MappingNode {
				for k := 0; k+1 < len(v.Content); k += 2 {
					tpl.Triggers = tpl.Triggers || v.Content[k].Value == "include"
				}
			}
		case "variables":
			for k := 0; k+1 < len(v.Content); k += 2 {
				if val := v.Content[k+1]; val.Kind == yaml.ScalarNode {
					tpl.Variables[v.Content[k].Value] = val.Value
				}
			}
		}
	}
	return tpl
}

// Get returns the template called name.
func (t *Templates) Get(name string) (*Template, bool) {
	tpl, ok := t.byName[name]
	return tpl, ok
}

// Variable returns a variable of template name as GitLab resolves it: its
// own value, else the value of the last template it extends that has one
// (recursively).
func (t *Templates) Variable(name, variable string) (string, bool) {
	return t.variable(name, variable, map[string]bool{})
}

func (t *Templates) variable(name, variable string, seen map[string]bool) (string, bool) {
	tpl, ok := t.byName[name]
	if !ok || seen[name] {
		return "", false
	}
	seen[name] = true
	if v, ok := tpl.Variables[variable]; ok {
		return v, true
	}
	for i := len(tpl.Extends) - 1; i >= 0; i-- {
		if v, ok := t.variable(tpl.Extends[i], variable, seen); ok {
			return v, true
		}
	}
	return "", false
}

// CheckInfra says why the template .infra cannot be the infrastructure of
// an upgrade job, or returns nil: it must exist, start a deployment
// pipeline of its own (trigger: include:, as .capo and .capm3 do) and not
// turn the management cluster's update off. sylva-core's .capd sets
// UPDATE_MGMT_CLUSTER "false" (it only deploys, to preview) and its
// upgrade scenario templates do not set it back, so its jobs would never
// upgrade. Each error starts with the template's name or CIDir.
func (t *Templates) CheckInfra(infra string) error {
	name := "." + infra
	tpl, ok := t.byName[name]
	switch {
	case !ok:
		return fmt.Errorf("%s has no %s template", CIDir, name)
	case !tpl.Triggers:
		return fmt.Errorf("%s starts no deployment pipeline (it has no trigger: include:)", name)
	}
	if v, ok := t.Variable(name, "UPDATE_MGMT_CLUSTER"); ok && v == "false" {
		return fmt.Errorf("%s sets UPDATE_MGMT_CLUSTER \"false\": its jobs would deploy the initial revision and never upgrade it", name)
	}
	return nil
}

// Infrastructures lists, sorted, the infrastructures CheckInfra accepts
// ("capm3", "capo"): the names of their templates without the dot.
func (t *Templates) Infrastructures() []string {
	var out []string
	for _, name := range slices.Sorted(maps.Keys(t.byName)) {
		if infra := strings.TrimPrefix(name, "."); t.CheckInfra(infra) == nil {
			out = append(out, infra)
		}
	}
	return out
}

// BootstrapProviders lists, sorted, the bootstrap providers sylva-core's
// deployment jobs name (🚀; kadm is kubeadm): the default of
// ALLOWED_DEPLOYMENT_BOOTSTRAP in its
// .gitlab/ci/scripts/generate_deployment_jobs.py.
func BootstrapProviders() []string { return []string{"ck8s", "kadm", "rke2"} }

// NodeOSes lists, sorted, the node OSes sylva-core's deployment jobs name
// (🐧): the default of ALLOWED_DEPLOYMENT_NODE_OS in the same script. Its
// jobs read node-os-OS.yml of the CI values for the one they name.
func NodeOSes() []string { return []string{"suse", "ubuntu"} }

// UpgradeScenario is a scenario template that deploys an initial revision
// and upgrades it: it sets MGMT_INITIAL_REVISION itself.
type UpgradeScenario struct {
	// Template is the template's name, Scenario the scenario's
	// ("sylva-upgrade-from-1.3.x").
	Template string
	Scenario string
	File     string
	// InitialRevision is its MGMT_INITIAL_REVISION ("release-1.3", "1.2.1").
	InitialRevision string
	// From is the Sylva minor of the initial revision.
	From semver.Version
}

// UpgradeScenarios lists the upgrade scenario templates whose initial
// revision names a Sylva minor (a release-X.Y branch or an X.Y.Z tag,
// possibly with a suffix), sorted by name.
func (t *Templates) UpgradeScenarios() []UpgradeScenario {
	var out []UpgradeScenario
	for name, tpl := range t.byName {
		rev, ok := tpl.Variables["MGMT_INITIAL_REVISION"]
		if !strings.HasPrefix(name, ScenarioPrefix) || !ok || rev == "" {
			continue
		}
		from, ok := revisionRelease(rev)
		if !ok {
			continue
		}
		out = append(out, UpgradeScenario{Template: name, Scenario: strings.TrimPrefix(name, ScenarioPrefix), File: tpl.File, InitialRevision: rev, From: from})
	}
	slices.SortFunc(out, func(a, b UpgradeScenario) int { return strings.Compare(a.Template, b.Template) })
	return out
}

// revisionRelease reads the Sylva minor of a CI revision: release-1.3 →
// 1.3, 1.2.1 → 1.2, 1.1.1-ci-tweaks → 1.1.
func revisionRelease(rev string) (semver.Version, bool) {
	if strings.HasPrefix(rev, "release-") {
		v, err := semver.Parse(strings.TrimPrefix(rev, "release-"))
		return v.MinorOnly(), err == nil && !v.HasPatch
	}
	v, err := semver.Parse(rev)
	return v.MinorOnly(), err == nil && v.HasPatch
}

// ForSource returns the upgrade scenario for source minor from: the one
// whose initial revision is that minor's release branch, else the one with
// the highest tag of that minor.
func (t *Templates) ForSource(from semver.Version) (UpgradeScenario, bool) {
	var best UpgradeScenario
	found := false
	for _, s := range t.UpgradeScenarios() {
		if s.From.CompareMinor(from) != 0 {
			continue
		}
		switch {
		case !found:
			best, found = s, true
		case strings.HasPrefix(s.InitialRevision, "release-"):
			best = s
		case !strings.HasPrefix(best.InitialRevision, "release-") && s.InitialRevision > best.InitialRevision:
			best = s
		}
	}
	return best, found
}

// DefaultUpgrade returns the checkout's default upgrade scenario: the one
// .scenario_sylva-upgrade extends, else the first upgrade scenario by name.
func (t *Templates) DefaultUpgrade() (UpgradeScenario, bool) {
	all := t.UpgradeScenarios()
	if alias, ok := t.byName[ScenarioPrefix+"sylva-upgrade"]; ok {
		for _, e := range alias.Extends {
			for _, s := range all {
				if s.Template == e {
					return s, true
				}
			}
		}
	}
	if len(all) == 0 {
		return UpgradeScenario{}, false
	}
	return all[0], true
}
