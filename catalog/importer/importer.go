package importer

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"text/template"

	"github.com/Masterminds/sprig/v3"
	yaml "go.yaml.in/yaml/v3"

	"gitlab.com/sylva-projects/sylva-planner/catalog"
	"gitlab.com/sylva-projects/sylva-planner/semver"
)

// Paths of a sylva-core tree the import reads. Management values are read
// over the chart's defaults, as the management cluster's release is
// rendered with both.
const (
	ValuesPath           = "charts/sylva-units/values.yaml"
	ManagementValuesPath = "charts/sylva-units/management.values.yaml"
)

// Ref is one sylva-core ref to import.
type Ref struct {
	// Name is the tag or branch ("1.3.10", "release-1.3", "main").
	Name   string
	Commit string
	// Release is the Sylva minor the ref carries. Zero: taken from a tag
	// (X.Y.Z) or release branch (release-X.Y) name, else from a literal
	// sylva_release, else the release after the newest other ref (see
	// ImportAll).
	Release semver.Version
	// FS is the ref's tree.
	FS fs.FS
}

// Result is what one ref proves.
type Result struct {
	Ref     string
	Commit  string
	Release semver.Version
	// Development is true for a ref that is neither a release tag nor a
	// release branch (main).
	Development bool
	// Management is k8s_version_short, zero when it could not be read.
	Management       semver.Version
	ManagementSource string
	// KubeVersions is _internal.k8s_version_map per minor, oldest first.
	KubeVersions []catalog.KubeVersion
	// Units lists the version each known unit deploys, sorted by unit.
	Units []catalog.UnitVersion
	// Components are the units' versions as components the gate judges:
	// only those whose version the component catalog has a Kubernetes
	// range for. Sorted by name.
	Components []catalog.ReleaseComponent
	// Notes say what was left out and why, in reading order.
	Notes []Note
}

// Note is one value the import left out, or read with a caveat.
type Note struct {
	// Source is REF:PATH#KEY of the value.
	Source string `json:"source"`
	Text   string `json:"text"`
}

// providers maps the catalog's bootstrap providers to the values that
// cluster.capi_providers.bootstrap_provider takes for them in sylva-units.
var providers = []struct {
	p     catalog.Provider
	value string
}{{catalog.ProviderKubeadm, "cabpk"}, {catalog.ProviderRKE2, "cabpr"}}

// appVersion derives a component version from a unit version; it returns
// false when the unit version does not have the expected form.
type appVersion func(unitVersion string) (semver.Version, bool)

// unitRule says how to read one unit and, when the gate knows its
// component, how its version becomes the component's.
type unitRule struct {
	unit string
	// repo is, for a Kustomize unit, the upstream GitHub repository whose
	// released manifests the unit applies; empty for a Helm unit.
	repo      string
	component string
	app       appVersion
	// why says why a known unit is not turned into a component.
	why string
}

// units are the units the import reads. The chart-to-application rules:
// jetstack's cert-manager, external-secrets, rancher and the Flux and
// Cluster API release manifests carry the application's own version;
// Rancher's charts end with "+upX.Y.Z", the upstream version; RKE2's
// charts (rke2-calico v3.29.300) keep the upstream major.minor, and
// rke2-ingress-nginx 4.N tracks the ingress-nginx chart 4.N, which ships
// controller 1.N (ingress-nginx's supported-versions table).
var units = []unitRule{
	{unit: "cabpk", repo: "cluster-api", why: "ships with Cluster API (the capi unit)"},
	{unit: "cabpr", repo: "cluster-api-provider-rke2", why: "no Kubernetes range in the component catalog"},
	{unit: "calico", component: "calico", app: upstreamMinor},
	{unit: "capd", repo: "cluster-api", why: "ships with Cluster API (the capi unit)"},
	{unit: "capi", repo: "cluster-api", component: "cluster-api", app: sameVersion},
	{unit: "capm3", repo: "cluster-api-provider-metal3", why: "no Kubernetes range in the component catalog"},
	{unit: "capo", repo: "cluster-api-provider-openstack", why: "no Kubernetes range in the component catalog"},
	{unit: "capv", repo: "cluster-api-provider-vsphere", why: "no Kubernetes range in the component catalog"},
	{unit: "cert-manager", component: "cert-manager", app: sameVersion},
	{unit: "external-secrets-operator", component: "external-secrets", app: sameVersion},
	{unit: "flux-system", repo: "flux2", component: "flux", app: sameVersion},
	{unit: "ingress-nginx", component: "ingress-nginx", app: ingressNginxController},
	{unit: "kyverno", why: "the Kyverno chart version is not the Kyverno version, and sylva-core does not state the latter"},
	{unit: "longhorn", component: "longhorn", app: rancherUpstream},
	{unit: "metallb", why: "no Kubernetes range in the component catalog"},
	{unit: "rancher", component: "rancher", app: sameVersion},
}

func sameVersion(s string) (semver.Version, bool) {
	v, err := semver.Parse(s)
	if err != nil || !v.HasPatch {
		return semver.Version{}, false
	}
	return semver.Version{Major: v.Major, Minor: v.Minor, Patch: v.Patch, HasPatch: true, Pre: v.Pre}, true
}

var upSuffix = regexp.MustCompile(`\+up([0-9]+\.[0-9]+\.[0-9]+)$`)

func rancherUpstream(s string) (semver.Version, bool) {
	m := upSuffix.FindStringSubmatch(s)
	if m == nil {
		return semver.Version{}, false
	}
	return sameVersion(m[1])
}

func upstreamMinor(s string) (semver.Version, bool) {
	v, err := semver.Parse(s)
	if err != nil {
		return semver.Version{}, false
	}
	return v.MinorOnly(), true
}

func ingressNginxController(s string) (semver.Version, bool) {
	v, err := semver.Parse(s)
	if err != nil || v.Major != 4 {
		return semver.Version{}, false
	}
	return semver.Version{Major: 1, Minor: v.Minor}, true
}

// Read imports one ref. cat is the component catalog that decides which
// unit versions the gate can judge. It fails only when the values file is
// missing or is not YAML; everything else it cannot prove becomes a Note.
func Read(ref Ref, cat *catalog.Catalog) (*Result, error) {
	r := &Result{Ref: ref.Name, Commit: ref.Commit, Release: ref.Release, Development: true}
	vals, err := readValues(ref)
	if err != nil {
		return nil, err
	}
	switch {
	case isTag(ref.Name):
		r.Development = false
		if r.Release.IsZero() {
			r.Release = semver.MustParse(ref.Name).MinorOnly()
		}
	case strings.HasPrefix(branchName(ref.Name), "release-"):
		if v, err := semver.Parse(strings.TrimPrefix(branchName(ref.Name), "release-")); err == nil && !v.HasPatch && v.Pre == "" {
			r.Development = false
			if r.Release.IsZero() {
				r.Release = v
			}
		}
	}
	if r.Release.IsZero() {
		if n, src := vals.get("sylva_release"); n != nil && n.Kind == yaml.ScalarNode && n.Tag == "!!str" && !isTemplate(n.Value) {
			if v, err := semver.Parse(n.Value); err == nil {
				r.Release = v.MinorOnly()
			} else {
				r.note(src, fmt.Sprintf("sylva_release %q is not a version", n.Value))
			}
		}
	}
	r.readKubernetes(vals)
	for _, u := range units {
		r.readUnit(vals, u, cat)
	}
	return r, nil
}

func isTag(name string) bool {
	v, err := semver.Parse(name)
	return err == nil && v.HasPatch && !strings.HasPrefix(name, "v")
}

func isTemplate(s string) bool { return strings.Contains(s, "{{") }

func (r *Result) note(source, text string) {
	r.Notes = append(r.Notes, Note{Source: source, Text: text})
}

func (r *Result) readKubernetes(vals *values) {
	n, src := vals.get("k8s_version_short")
	switch {
	case n == nil:
		r.note(vals.source(ValuesPath, "k8s_version_short"), "not set")
	case n.Kind != yaml.ScalarNode || isTemplate(n.Value):
		r.note(src, "needs gotpl interpretation; not read")
	default:
		v, err := semver.Parse(n.Value)
		if err != nil || v.HasPatch {
			r.note(src, fmt.Sprintf("%q is not a MAJOR.MINOR version", n.Value))
			break
		}
		if n.Tag != "!!str" {
			r.note(src, fmt.Sprintf("written as a YAML number; read as its text %q", n.Value))
		}
		r.Management, r.ManagementSource = v, src
	}

	entries, notes := vals.mapEntries("_internal", "k8s_version_map")
	for _, nt := range notes {
		r.note(nt.Source, nt.Text)
	}
	if len(entries) == 0 {
		r.note(vals.source(ValuesPath, "_internal.k8s_version_map"), "not set")
	}
	for _, e := range entries {
		minor, err := semver.Parse(e.key)
		if err != nil || minor.HasPatch {
			r.note(e.source, fmt.Sprintf("key %q is not a Kubernetes minor", e.key))
			continue
		}
		kv := catalog.KubeVersion{Minor: minor, Source: e.source}
		ok := true
		for _, p := range providers {
			full, why := fullVersion(e.value, p.value)
			if why == "" {
				v, err := semver.Parse(full)
				switch {
				case err != nil || !v.HasPatch:
					why = fmt.Sprintf("gives %q for %s, not a full version", full, p.p)
				case v.CompareMinor(minor) != 0:
					why = fmt.Sprintf("gives %s for %s, not a %s version", full, p.p, minor)
				case p.p == catalog.ProviderRKE2:
					kv.RKE2 = v
				default:
					kv.Kubeadm = v
				}
			}
			if why != "" {
				r.note(e.source, why)
				ok = false
			}
		}
		if !ok {
			continue
		}
		if f, err := strconv.ParseFloat(e.key, 64); err == nil && e.keyTag == "!!float" && strconv.FormatFloat(f, 'f', -1, 64) != e.key {
			// Helm reads values through JSON, where this key becomes the
			// number's shortest form: k8s_version_short "1.30" would not
			// find it.
			r.note(e.source, fmt.Sprintf("key written as the YAML number %s, which Helm reads as %s; read as written (quote it in sylva-core)", e.key, strconv.FormatFloat(f, 'f', -1, 64)))
		}
		r.KubeVersions = append(r.KubeVersions, kv)
	}
	slices.SortFunc(r.KubeVersions, func(a, b catalog.KubeVersion) int { return a.Minor.Compare(b.Minor) })
	for i := 1; i < len(r.KubeVersions); i++ {
		if r.KubeVersions[i-1].Minor.CompareMinor(r.KubeVersions[i].Minor) == 0 {
			r.note(r.KubeVersions[i].Source, fmt.Sprintf("minor %s is mapped twice", r.KubeVersions[i].Minor))
		}
	}
}

// fullVersion executes one k8s_version_map entry as Go's text/template with
// sprig's functions — the engine Helm renders with — for one value of
// cluster.capi_providers.bootstrap_provider and nothing else: an entry that
// reads anything more, or needs Helm's own functions (include, tpl), fails
// and is reported instead of guessed.
func fullVersion(n *yaml.Node, bootstrapProvider string) (string, string) {
	if n.Kind != yaml.ScalarNode {
		return "", "is not a string"
	}
	if !isTemplate(n.Value) {
		return strings.TrimSpace(n.Value), ""
	}
	t, err := template.New("k8s_version_map").Funcs(sprig.HermeticTxtFuncMap()).Option("missingkey=error").Parse(n.Value)
	if err != nil {
		return "", "needs gotpl interpretation beyond the bootstrap provider (" + firstLine(err.Error()) + "); not read"
	}
	data := map[string]any{"Values": map[string]any{"cluster": map[string]any{"capi_providers": map[string]any{"bootstrap_provider": bootstrapProvider}}}}
	var b strings.Builder
	if err := t.Execute(&b, data); err != nil {
		return "", "needs gotpl interpretation beyond the bootstrap provider (" + firstLine(err.Error()) + "); not read"
	}
	return strings.TrimSpace(b.String()), ""
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

func (r *Result) readUnit(vals *values, rule unitRule, cat *catalog.Catalog) {
	key := "units." + rule.unit
	if n, _ := vals.get("units", rule.unit); n == nil {
		r.note(vals.source(ValuesPath, key), "unit not defined")
		return
	}
	var uv catalog.UnitVersion
	var ok bool
	if rule.repo != "" {
		uv, ok = r.kustomizeVersion(vals, rule)
	} else {
		uv, ok = r.chartVersion(vals, rule)
	}
	if !ok {
		return
	}
	r.Units = append(r.Units, uv)
	if rule.component == "" {
		return
	}
	v, ok := rule.app(uv.Version)
	if !ok {
		r.note(uv.Source, fmt.Sprintf("%s: %s %q does not have the form the %s version is read from", rule.unit, versionWord(uv), uv.Version, rule.component))
		return
	}
	comp, ok := cat.Component(rule.component)
	if !ok {
		r.note(uv.Source, fmt.Sprintf("%s %s is information only: %s is not in the component catalog", rule.component, v, rule.component))
		return
	}
	if cv, ok := comp.Version(v); !ok || !cv.Matches(v) {
		r.note(uv.Source, fmt.Sprintf("%s %s is information only: the component catalog has no Kubernetes range for it", rule.component, v))
		return
	}
	rc := catalog.ReleaseComponent{Name: rule.component, Version: v, Source: uv.Source}
	if uv.Chart != "" && uv.Version != v.String() && strings.TrimPrefix(uv.Version, "v") != v.String() {
		rc.Chart = uv.Version
	}
	r.Components = append(r.Components, rc)
	slices.SortFunc(r.Components, func(a, b catalog.ReleaseComponent) int { return strings.Compare(a.Name, b.Name) })
}

func versionWord(uv catalog.UnitVersion) string {
	if uv.Chart != "" {
		return "chart version"
	}
	return "release"
}

// chartVersion reads a Helm unit's chart and version: helm_chart_versions
// when the unit has it (its single entry, or the single entry set to a
// literal true), else helmrelease_spec.chart.spec.version.
func (r *Result) chartVersion(vals *values, rule unitRule) (catalog.UnitVersion, bool) {
	uv := catalog.UnitVersion{Unit: rule.unit}
	if n, _, note := vals.unitField(rule.unit, "helmrelease_spec", "chart", "spec", "chart"); n != nil && n.Kind == yaml.ScalarNode && !isTemplate(n.Value) {
		uv.Chart = n.Value
	} else if note != nil {
		r.note(note.Source, note.Text)
	}
	hcv, hcvSrc, note := vals.unitField(rule.unit, "helm_chart_versions")
	if note != nil {
		r.note(note.Source, note.Text)
		return uv, false
	}
	if hcv != nil && hcv.Kind == yaml.MappingNode && len(hcv.Content) > 0 {
		var keys, chosen []string
		literal := true
		for i := 0; i+1 < len(hcv.Content); i += 2 {
			k, v := hcv.Content[i].Value, deref(hcv.Content[i+1])
			keys = append(keys, k)
			switch {
			case v.Kind == yaml.ScalarNode && v.Tag == "!!bool" && v.Value == "true":
				chosen = append(chosen, k)
			case v.Kind == yaml.ScalarNode && v.Tag == "!!bool":
			default:
				literal = false
			}
		}
		switch {
		case len(keys) == 1:
			uv.Version, uv.Source = keys[0], hcvSrc
		case literal && len(chosen) == 1:
			uv.Version, uv.Source = chosen[0], hcvSrc+"."+chosen[0]
		default:
			r.note(hcvSrc, fmt.Sprintf("picks one of %s with gotpl conditions; not interpreted", strings.Join(keys, ", ")))
			return uv, false
		}
		return uv, true
	}
	n, src, note := vals.unitField(rule.unit, "helmrelease_spec", "chart", "spec", "version")
	switch {
	case note != nil:
		r.note(note.Source, note.Text)
	case n == nil || n.Kind != yaml.ScalarNode || n.Value == "":
		r.note(vals.source(ValuesPath, "units."+rule.unit+".helmrelease_spec.chart.spec.version"), "no chart version")
	case isTemplate(n.Value):
		r.note(src, "needs gotpl interpretation; not read")
	default:
		uv.Version, uv.Source = n.Value, src
		return uv, true
	}
	return uv, false
}

// release URLs of GitHub projects, as Kustomize resources: a release
// asset, or a remote base pinned with ?ref=.
var (
	releaseAsset = regexp.MustCompile(`^https://github\.com/[^/]+/([^/]+)/releases/download/([^/]+)/`)
	remoteBase   = regexp.MustCompile(`^https://github\.com/[^/]+/([^/?]+)/[^?]*\?ref=([^&]+)$`)
)

// kustomizeVersion reads the release of rule.repo that a Kustomize unit's
// kustomization applies.
func (r *Result) kustomizeVersion(vals *values, rule unitRule) (catalog.UnitVersion, bool) {
	uv := catalog.UnitVersion{Unit: rule.unit}
	n, src, note := vals.unitField(rule.unit, "kustomization_spec", "path")
	switch {
	case note != nil:
		r.note(note.Source, note.Text)
		return uv, false
	case n == nil || n.Kind != yaml.ScalarNode || n.Value == "":
		r.note(vals.source(ValuesPath, "units."+rule.unit+".kustomization_spec.path"), "no kustomization path")
		return uv, false
	case isTemplate(n.Value):
		r.note(src, "needs gotpl interpretation; not read")
		return uv, false
	}
	file := path.Join(path.Clean(strings.TrimPrefix(n.Value, "./")), "kustomization.yaml")
	fileSrc := vals.ref + ":" + file + "#resources"
	data, err := fs.ReadFile(vals.fsys, file)
	if err != nil {
		r.note(fileSrc, "not found")
		return uv, false
	}
	var k struct {
		Resources []string `yaml:"resources"`
	}
	if err := yaml.Unmarshal(data, &k); err != nil {
		r.note(fileSrc, "not YAML: "+firstLine(err.Error()))
		return uv, false
	}
	var found []string
	for _, res := range k.Resources {
		for _, rx := range []*regexp.Regexp{releaseAsset, remoteBase} {
			if m := rx.FindStringSubmatch(res); m != nil && m[1] == rule.repo {
				if _, err := semver.Parse(m[2]); err == nil {
					found = append(found, m[2])
				}
			}
		}
	}
	slices.Sort(found)
	found = slices.Compact(found)
	switch len(found) {
	case 0:
		r.note(fileSrc, fmt.Sprintf("no release of %s among the resources", rule.repo))
		return uv, false
	case 1:
		uv.Version, uv.Source = found[0], fileSrc
		return uv, true
	}
	r.note(fileSrc, fmt.Sprintf("applies several releases of %s (%s)", rule.repo, strings.Join(found, ", ")))
	return uv, false
}

// ImportAll reads every ref, then gives each ref whose release is still
// unknown (main without a literal sylva_release) the release after the
// newest release of the others, or of released: the releases the
// checkout's release tags and branches name (its refs not read, as with
// --ref main alone), as ci-matrix counts main's release from them.
func ImportAll(refs []Ref, cat *catalog.Catalog, released []semver.Version) ([]*Result, error) {
	out := make([]*Result, 0, len(refs))
	var newest semver.Version
	for _, ref := range refs {
		r, err := Read(ref, cat)
		if err != nil {
			return nil, err
		}
		if !r.Development && r.Release.Compare(newest) > 0 {
			newest = r.Release
		}
		out = append(out, r)
	}
	among := "among the refs"
	for _, v := range released {
		if v.CompareMinor(newest) > 0 {
			newest, among = v, "among the checkout's release tags and branches"
		}
	}
	for _, r := range out {
		if !r.Release.IsZero() {
			continue
		}
		if newest.IsZero() {
			return nil, fmt.Errorf("%s: no sylva_release and no release tag or branch to count from; name its release as --ref %s=X.Y", r.Ref, r.Ref)
		}
		r.Release = newest.AddMinor(1)
		r.note(r.Ref+":"+ValuesPath+"#sylva_release", fmt.Sprintf("not set; release %s is the one after the newest release %s (%s)", r.Release, among, newest))
	}
	// A release runs its own components on its own Kubernetes: a range of
	// the component catalog that excludes it is refused here, naming the
	// component, its source and the minor, before anything is written.
	var errs []error
	for _, r := range out {
		rel := catalog.Release{Release: r.Release, Kubernetes: catalog.Kubernetes{Management: r.Management}, Components: r.Components}
		for _, err := range cat.OwnMinorErrors(&rel) {
			errs = append(errs, fmt.Errorf("%s: %w; fix the range in the component catalog (components.yaml)", r.Ref, err))
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return out, nil
}

// Releases turns results into catalog release entries (without
// upgrade_from, which is policy and kept by hand), one per Sylva minor,
// oldest first. When several refs carry one minor, a release branch wins
// (it holds the newest patch), then the highest tag, then a development
// ref. An entry needs a management minor among its Kubernetes versions.
func Releases(results []*Result) ([]catalog.Release, error) {
	best := map[string]*Result{}
	for _, r := range results {
		k := r.Release.Short()
		if cur, ok := best[k]; !ok || rank(r) > rank(cur) || (rank(r) == rank(cur) && isTag(r.Ref) && semver.MustParse(r.Ref).Compare(semver.MustParse(cur.Ref)) > 0) {
			best[k] = r
		}
	}
	var out []catalog.Release
	for _, r := range best {
		if r.Management.IsZero() {
			return nil, fmt.Errorf("%s: k8s_version_short could not be read, so release %s cannot be imported", r.Ref, r.Release)
		}
		if !slices.ContainsFunc(r.KubeVersions, func(k catalog.KubeVersion) bool { return k.Minor.CompareMinor(r.Management) == 0 }) {
			return nil, fmt.Errorf("%s: k8s_version_map has no full version for the management minor %s", r.Ref, r.Management)
		}
		out = append(out, catalog.Release{
			Release:      r.Release.MinorOnly(),
			Development:  r.Development,
			ImportedFrom: &catalog.ImportSource{Ref: r.Ref, Commit: r.Commit},
			Kubernetes:   catalog.Kubernetes{Management: r.Management, ManagementSource: r.ManagementSource, Versions: r.KubeVersions},
			Components:   r.Components,
			Units:        r.Units,
		})
	}
	slices.SortFunc(out, func(a, b catalog.Release) int { return a.Release.Compare(b.Release) })
	return out, nil
}

func rank(r *Result) int {
	switch {
	case strings.HasPrefix(branchName(r.Ref), "release-") && !r.Development:
		return 2
	case isTag(r.Ref):
		return 1
	}
	return 0
}

// ErrNoValues is returned when a ref has no sylva-units values file.
var ErrNoValues = errors.New("no " + ValuesPath)

// branchName is the branch a ref names, without its remote: release-1.3
// for origin/release-1.3.
func branchName(ref string) string { return ref[strings.LastIndex(ref, "/")+1:] }
