package catalog

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
	"sync"
	"time"

	"sigs.k8s.io/yaml"

	"gitlab.com/sylva-projects/sylva-planner/envelope"
	"gitlab.com/sylva-projects/sylva-planner/semver"
	"gitlab.com/sylva-projects/sylva-planner/skew"
	"gitlab.com/sylva-projects/sylva-planner/yamldoc"
)

// APIVersion is the apiVersion every catalog file carries.
const APIVersion = envelope.APIVersion

// Kinds of catalog files.
const (
	KindReleases   = "ReleaseCatalog"
	KindComponents = "ComponentCatalog"
	// KindCatalog holds releases, components and Kubernetes end-of-life
	// dates in one document: what `catalog list -o yaml` writes.
	KindCatalog = "Catalog"
)

// Provider is a Cluster API bootstrap provider Sylva deploys clusters with.
type Provider string

// Bootstrap providers.
const (
	ProviderKubeadm Provider = "kubeadm"
	ProviderRKE2    Provider = "rke2"
)

// ParseProvider parses a provider name; the error lists the valid ones.
func ParseProvider(s string) (Provider, error) {
	switch p := Provider(s); p {
	case ProviderKubeadm, ProviderRKE2:
		return p, nil
	}
	return "", fmt.Errorf("unknown bootstrap provider %q (valid: kubeadm, rke2)", s)
}

// Stepping says how a component may move between versions.
type Stepping string

// Steppings.
const (
	// SteppingJump: the component goes straight to the target version.
	SteppingJump Stepping = ""
	// SteppingMinor: the component only upgrades from its previous minor.
	SteppingMinor Stepping = "minor"
)

// Catalog is the whole catalog: releases sorted oldest first, components
// sorted by name.
type Catalog struct {
	// Version is the catalog data version ("2026.11.0").
	Version string
	// Updated is the day the data was last edited.
	Updated    time.Time
	Releases   []Release
	Components []Component
	// Kubernetes holds the end-of-life date of each Kubernetes minor.
	Kubernetes []KubeLifecycle
}

// KubeLifecycle is the end of life of one Kubernetes minor.
type KubeLifecycle struct {
	Minor     semver.Version `json:"minor"`
	EndOfLife Date           `json:"end_of_life"`
}

// KubeEndOfLife returns the end-of-life date of the Kubernetes minor of v.
func (c *Catalog) KubeEndOfLife(v semver.Version) (Date, bool) {
	for _, k := range c.Kubernetes {
		if k.Minor.CompareMinor(v) == 0 {
			return k.EndOfLife, true
		}
	}
	return Date{}, false
}

// Date is a calendar day written YYYY-MM-DD; it ends at 00:00 UTC of the
// next day's start, that is, a date D has passed from D 00:00 UTC on.
type Date struct{ time.Time }

// UnmarshalJSON accepts only a quoted YYYY-MM-DD.
func (d *Date) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("date %s: write it as a quoted YYYY-MM-DD", b)
	}
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		return fmt.Errorf("date %q is not YYYY-MM-DD", s)
	}
	d.Time = t
	return nil
}

// MarshalJSON writes the date as YYYY-MM-DD.
func (d Date) MarshalJSON() ([]byte, error) { return json.Marshal(d.String()) }

// String returns YYYY-MM-DD.
func (d Date) String() string { return d.Format(time.DateOnly) }

// IsZero reports an absent date.
func (d Date) IsZero() bool { return d.Time.IsZero() }

// Release is one Sylva minor release.
type Release struct {
	Release     semver.Version   `json:"release"`
	UpgradeFrom []semver.Version `json:"upgrade_from,omitempty"`
	// Development marks a release still developed on main: its data is
	// what main said when it was imported, not a tagged release.
	Development bool `json:"development,omitempty"`
	// ImportedFrom names the sylva-core ref the imported parts of the entry
	// were read from; nil for an entry kept by hand.
	ImportedFrom *ImportSource      `json:"imported_from,omitempty"`
	Kubernetes   Kubernetes         `json:"kubernetes"`
	Components   []ReleaseComponent `json:"components,omitempty"`
	PassThrough  []ReleaseComponent `json:"pass_through,omitempty"`
	// Units are the versions the release deploys per sylva-units unit, as
	// read from sylva-core. They are information: the gate judges
	// Components only.
	Units []UnitVersion `json:"units,omitempty"`
	Notes string        `json:"notes,omitempty"`
	// Capabilities say what the release's sylva-units chart can do during
	// a transition; nil, or a capability left out, means it cannot.
	Capabilities *Capabilities `json:"capabilities,omitempty"`
	// Manages are the workload-cluster releases a management cluster on
	// this release is known to manage (each with its source), beside the
	// release itself and the one before it, which every release manages
	// (as Sylva's CI runs them). A release not listed, and not one of
	// those two, is not managed.
	Manages []Managed `json:"manages,omitempty"`
}

// Managed is a workload-cluster release a management release manages, and
// where that is known from.
type Managed struct {
	Release semver.Version `json:"release"`
	Source  string         `json:"source"`
}

// ManagesWorkload reports whether a management cluster on r manages a
// workload cluster on w, and why: r itself, the release just before it
// (the catalog's previous release), or an entry of Manages (its source).
func (c *Catalog) ManagesWorkload(r *Release, w semver.Version) (bool, string) {
	switch ok, src := c.manages(r, w); {
	case r.Release.CompareMinor(w) < 0:
		return false, "a newer release than the management cluster's"
	case r.Release.CompareMinor(w) == 0:
		return true, "its own release"
	case ok && src != "":
		return true, src
	case ok:
		return true, "the release before it"
	}
	return false, fmt.Sprintf("%s manages %s only", r.Release.Short(), strings.Join(c.managedList(r), " and "))
}

// managedList names the releases r manages, oldest first.
func (c *Catalog) managedList(r *Release) []string {
	var out []string
	for i := range c.Releases {
		o := &c.Releases[i]
		if o.Release.CompareMinor(r.Release) > 0 {
			continue
		}
		if ok, _ := c.manages(r, o.Release); ok {
			out = append(out, o.Release.Short())
		}
	}
	return out
}

// manages reports whether r manages w (ManagesWorkload), and the source
// of a Manages entry that says so.
func (c *Catalog) manages(r *Release, w semver.Version) (bool, string) {
	if r.Release.CompareMinor(w) == 0 {
		return true, ""
	}
	for _, m := range r.Manages {
		if m.Release.CompareMinor(w) == 0 {
			return true, m.Source
		}
	}
	var prev *Release
	for i := range c.Releases {
		if c.Releases[i].Release.CompareMinor(r.Release) < 0 {
			prev = &c.Releases[i]
		}
	}
	return prev != nil && prev.Release.CompareMinor(w) == 0, ""
}

// Capabilities are what a release's sylva-units chart can do during a
// transition. Each is known from a source; one left out is unknown, and
// the planner assumes the chart cannot do it.
type Capabilities struct {
	// HoldWorkers: the chart reads the helper value
	// machine_deployments_paused and, while it is true, holds the
	// MachineDeployments back (spec.paused), so the workers do not follow
	// cluster.k8s_version before the last pass of a hop. Without it the
	// workers roll on every pass that changes the Kubernetes version.
	HoldWorkers *Capability `json:"hold_workers,omitempty"`
}

// Capability is one capability of a chart and where it was read.
type Capability struct {
	Value bool `json:"value"`
	// Source is where the value was read (REF:PATH#KEY, or a merge
	// request); required.
	Source string `json:"source"`
}

// HoldsWorkers reports whether the release's chart can hold the
// MachineDeployments back during a pass (Capabilities.HoldWorkers); false
// when that is unknown.
func (r *Release) HoldsWorkers() bool {
	return r.Capabilities != nil && r.Capabilities.HoldWorkers != nil && r.Capabilities.HoldWorkers.Value
}

// ImportSource is the sylva-core ref (a tag or a branch) and commit an
// imported release entry was read from.
type ImportSource struct {
	Ref    string `json:"ref"`
	Commit string `json:"commit,omitempty"`
}

// UnitVersion is the version one sylva-units unit deploys: a Helm chart
// version (Chart names the chart), or the release of the upstream project
// whose manifests a Kustomize unit applies (Chart empty). Source is where
// it was read, as REF:PATH#KEY.
type UnitVersion struct {
	Unit    string `json:"unit"`
	Chart   string `json:"chart,omitempty"`
	Version string `json:"version"`
	Source  string `json:"source"`
}

// Kubernetes is what a release ships of Kubernetes.
type Kubernetes struct {
	// Management is the minor the management cluster runs.
	Management semver.Version `json:"management"`
	// ManagementSource is where Management was read (REF:PATH#KEY), for
	// an imported entry.
	ManagementSource string `json:"management_source,omitempty"`
	// Versions are the minors this release maps to full versions, oldest
	// first; they are the minors a workload cluster may run.
	Versions []KubeVersion `json:"versions"`
}

// KubeVersion maps a Kubernetes minor to its full version per provider.
type KubeVersion struct {
	Minor   semver.Version `json:"minor"`
	Kubeadm semver.Version `json:"kubeadm"`
	RKE2    semver.Version `json:"rke2"`
	// Source is where the mapping was read (REF:PATH#KEY), for an imported
	// entry.
	Source string `json:"source,omitempty"`
}

// For returns the full version for provider p.
func (k KubeVersion) For(p Provider) semver.Version {
	if p == ProviderRKE2 {
		return k.RKE2
	}
	return k.Kubeadm
}

// ReleaseComponent is a component version a release ships or passes through.
type ReleaseComponent struct {
	Name    string         `json:"name"`
	Version semver.Version `json:"version"`
	// Chart is the Helm chart version, when it differs from Version.
	Chart string `json:"chart,omitempty"`
	// Source is where the version was read (REF:PATH#KEY), for an
	// imported entry.
	Source string `json:"source,omitempty"`
}

// Component is a component the planner steps or checks.
type Component struct {
	Name        string   `json:"name"`
	Stepping    Stepping `json:"stepping,omitempty"`
	Description string   `json:"description,omitempty"`
	// Pinned holds the component on purpose; PinReason says why.
	Pinned    bool   `json:"pinned,omitempty"`
	PinReason string `json:"pin_reason,omitempty"`
	// Images are regular expressions over container images whose first
	// group is the running version.
	Images []string `json:"images,omitempty"`
	// Labels find the running version from object labels.
	Labels   []LabelRule        `json:"labels,omitempty"`
	Versions []ComponentVersion `json:"versions"`
}

// LabelRule finds a component's version on objects matching Selector
// ("key=value"), in the label VersionLabel.
type LabelRule struct {
	Selector     string `json:"selector"`
	VersionLabel string `json:"version_label"`
}

// ComponentVersion is one version of a component and the Kubernetes minors
// it supports. A version written MAJOR.MINOR stands for every patch of that
// minor.
type ComponentVersion struct {
	Version   semver.Version `json:"version"`
	MinK8s    semver.Version `json:"min_k8s,omitzero"`
	MaxK8s    semver.Version `json:"max_k8s,omitzero"`
	EndOfLife Date           `json:"end_of_life,omitzero"`
}

// Matches reports whether the catalog entry v stands for the version x:
// the same version, or any patch of a MAJOR.MINOR entry.
func (v ComponentVersion) Matches(x semver.Version) bool {
	if !v.Version.HasPatch {
		return v.Version.CompareMinor(x) == 0
	}
	return v.Version.Equal(x)
}

// Kubernetes returns the range of Kubernetes minors v supports.
func (v ComponentVersion) Kubernetes() skew.Range { return skew.Range{Min: v.MinK8s, Max: v.MaxK8s} }

// Release returns the release whose minor is v ("1.6", "1.6.2" and
// "1.6-pre" all find 1.6).
func (c *Catalog) Release(v semver.Version) (*Release, bool) {
	for i := range c.Releases {
		if c.Releases[i].Release.CompareMinor(v) == 0 {
			return &c.Releases[i], true
		}
	}
	return nil, false
}

// Component returns the component named name.
func (c *Catalog) Component(name string) (*Component, bool) {
	for i := range c.Components {
		if c.Components[i].Name == name {
			return &c.Components[i], true
		}
	}
	return nil, false
}

// Oldest and Newest return the first and last release of the catalog.
func (c *Catalog) Oldest() semver.Version { return c.Releases[0].Release }

// Newest returns the last release of the catalog.
func (c *Catalog) Newest() semver.Version { return c.Releases[len(c.Releases)-1].Release }

// A release the catalog does not know is of one of two kinds, and every
// command says which in the same words (docs/catalog.md, "Releases the
// catalog does not know"): newer than its newest release (PastNewest: the
// catalog is older than the release), or any other (Unknown: before its
// oldest, or missing between two releases it knows).

// PastNewestFix is what to do about a release newer than the catalog.
const PastNewestFix = "update sylva-planner or pass a newer catalog with --catalog"

// IsPastNewest reports whether v is newer than the catalog's newest
// release.
func (c *Catalog) IsPastNewest(v semver.Version) bool {
	return !v.IsZero() && v.MinorOnly().Compare(c.Newest()) > 0
}

// PastNewest says that release v is newer than the catalog's newest.
func (c *Catalog) PastNewest(v semver.Version) string {
	return fmt.Sprintf("catalog %s (updated %s) ends at release %s; release %s cannot be judged", c.Version, c.Updated.Format(time.DateOnly), c.Newest(), v)
}

// RefusePastNewest is the error of a command that needs what the catalog
// says of release v, given with flag, when v is newer than the catalog:
// needs says what ("values generate needs its Kubernetes minors"). An
// empty flag leaves the flag to the caller's own prefix.
func (c *Catalog) RefusePastNewest(flag string, v semver.Version, needs string) error {
	msg := fmt.Sprintf("%s, and %s (kb-stale); %s", c.PastNewest(v), needs, PastNewestFix)
	if flag == "" {
		return errors.New(msg)
	}
	return fmt.Errorf("%s %s: %s", flag, v, msg)
}

// Unknown says that release v, not newer than the catalog, is not in it.
func (c *Catalog) Unknown(v semver.Version) string {
	return fmt.Sprintf("release %s is not in the catalog (known: %s … %s)", v, c.Oldest(), c.Newest())
}

// ReleaseNames lists the releases as "1.0", "1.1", … in order.
func (c *Catalog) ReleaseNames() []string {
	out := make([]string, len(c.Releases))
	for i, r := range c.Releases {
		out[i] = r.Release.String()
	}
	return out
}

// KubernetesMinors are the Kubernetes minors the releases run, oldest
// first, each once ("1.30", "1.31", ...).
func (c *Catalog) KubernetesMinors() []string {
	var minors []semver.Version
	for _, r := range c.Releases {
		for _, v := range r.Kubernetes.Versions {
			minors = append(minors, v.Minor)
		}
	}
	slices.SortFunc(minors, semver.Version.Compare)
	out := make([]string, len(minors))
	for i, m := range minors {
		out[i] = m.Short()
	}
	return slices.Compact(out)
}

// ReleaseMappingNewest is the release whose chart maps minor as its newest
// Kubernetes (the last of its Kubernetes versions), the newest such
// release when several do: how a chart taken from Git, whose version
// names no release, is told by its _internal.k8s_version_map.
func (c *Catalog) ReleaseMappingNewest(minor semver.Version) (semver.Version, bool) {
	var out semver.Version
	found := false
	for i := range c.Releases {
		r := &c.Releases[i]
		if newest, ok := r.NewestKubernetes(); ok && newest.CompareMinor(minor) == 0 && (!found || r.Release.Compare(out) > 0) {
			out, found = r.Release, true
		}
	}
	return out, found
}

// NewestKubernetes is the newest Kubernetes minor the release maps (the
// last of its Kubernetes versions), the one its chart's
// _internal.k8s_version_map ends on.
func (r *Release) NewestKubernetes() (semver.Version, bool) {
	if n := len(r.Kubernetes.Versions); n > 0 {
		return r.Kubernetes.Versions[n-1].Minor, true
	}
	return semver.Version{}, false
}

// Supports reports whether r lists from as a supported upgrade source.
func (r *Release) Supports(from semver.Version) bool {
	return slices.ContainsFunc(r.UpgradeFrom, func(v semver.Version) bool { return v.CompareMinor(from) == 0 })
}

// KubeVersion returns the full-version mapping of minor in r.
func (r *Release) KubeVersion(minor semver.Version) (KubeVersion, bool) {
	for _, k := range r.Kubernetes.Versions {
		if k.Minor.CompareMinor(minor) == 0 {
			return k, true
		}
	}
	return KubeVersion{}, false
}

// Component returns the version of component name that r ships.
func (r *Release) Component(name string) (ReleaseComponent, bool) {
	for _, c := range r.Components {
		if c.Name == name {
			return c, true
		}
	}
	return ReleaseComponent{}, false
}

// ChartVersion returns the Helm chart version sylva-units installs for
// version v of component name: the chart of the first release (oldest
// first) that ships v or passes through it with a chart given. ok is false
// when no release gives one.
func (c *Catalog) ChartVersion(name string, v semver.Version) (string, bool) {
	for _, r := range c.Releases {
		for _, list := range [][]ReleaseComponent{r.Components, r.PassThrough} {
			for _, rc := range list {
				if rc.Name == name && rc.Chart != "" && rc.Version.Equal(v) {
					return rc.Chart, true
				}
			}
		}
	}
	return "", false
}

// Version returns the entry of c for exactly v, or for the highest patch of
// v's minor when v has no exact entry.
func (c *Component) Version(v semver.Version) (ComponentVersion, bool) {
	var best ComponentVersion
	found := false
	for _, cv := range c.Versions {
		if cv.Version.Equal(v) {
			return cv, true
		}
		if cv.Version.CompareMinor(v) == 0 {
			best, found = cv, true
		}
	}
	return best, found
}

//go:embed data/*.yaml
var embedded embed.FS

var (
	defaultOnce sync.Once
	defaultCat  *Catalog
	defaultErr  error
)

// Default returns the embedded catalog, parsed once. The returned catalog is
// shared: callers must not modify it.
func Default() (*Catalog, error) {
	defaultOnce.Do(func() {
		sub, err := fs.Sub(embedded, "data")
		if err != nil {
			defaultErr = err
			return
		}
		defaultCat, defaultErr = Load(sub)
	})
	return defaultCat, defaultErr
}

// fileHeader is the envelope every catalog file carries.
type fileHeader struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	// Metadata is what a document written by the tool carries; it is
	// accepted and not used.
	Metadata       *envelope.Metadata `json:"metadata,omitempty"`
	CatalogVersion string             `json:"catalogVersion"`
	Updated        string             `json:"updated"`
}

type releasesFile struct {
	fileHeader
	Releases []Release `json:"releases"`
}

type componentsFile struct {
	fileHeader
	Kubernetes []KubeLifecycle `json:"kubernetes,omitempty"`
	Components []Component     `json:"components"`
}

// File is a whole catalog in one document of kind Catalog, as the tool
// writes it and --catalog reads it back.
type File struct {
	envelope.Header
	CatalogVersion string          `json:"catalogVersion"`
	Updated        string          `json:"updated"`
	Kubernetes     []KubeLifecycle `json:"kubernetes,omitempty"`
	Releases       []Release       `json:"releases"`
	Components     []Component     `json:"components"`
}

// File returns c as one document of kind Catalog with metadata md.
func (c *Catalog) File(md envelope.Metadata) File {
	return File{
		Header:         envelope.NewHeader(KindCatalog, md),
		CatalogVersion: c.Version, Updated: c.Updated.Format(time.DateOnly),
		Kubernetes: c.Kubernetes, Releases: c.Releases, Components: c.Components,
	}
}

// Load reads every *.yaml file at the root of fsys, decodes each strictly
// (unknown fields, duplicate keys and numeric versions are errors) and
// validates the result. All files must carry the same catalogVersion.
func Load(fsys fs.FS) (*Catalog, error) {
	names, err := fs.Glob(fsys, "*.yaml")
	if err != nil {
		return nil, err
	}
	if len(names) == 0 {
		return nil, errors.New("catalog: no *.yaml file")
	}
	return loadNamed(names, func(name string) ([]byte, error) { return fs.ReadFile(fsys, name) })
}

// LoadFiles loads a catalog from its files' contents, by name, as Load
// reads the *.yaml files of a directory (a name that is not *.yaml is left
// out): a catalog checked before it is written, say.
func LoadFiles(files map[string][]byte) (*Catalog, error) {
	var names []string
	for name := range files {
		if ok, _ := path.Match("*.yaml", name); ok {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return nil, errors.New("catalog: no *.yaml file")
	}
	return loadNamed(names, func(name string) ([]byte, error) { return files[name], nil })
}

// loadNamed decodes the files names, read in order, and validates the
// result.
func loadNamed(names []string, read func(name string) ([]byte, error)) (*Catalog, error) {
	slices.Sort(names)
	c := &Catalog{}
	for _, name := range names {
		data, err := read(name)
		if err != nil {
			return nil, fmt.Errorf("catalog: %w", err)
		}
		if err := c.add(name, data); err != nil {
			return nil, err
		}
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return c, nil
}

// LoadFile loads a catalog from one file (or from a directory of *.yaml
// files) at a path of fsys.
func LoadFile(fsys fs.FS, name string) (*Catalog, error) {
	st, err := fs.Stat(fsys, name)
	if err != nil {
		return nil, fmt.Errorf("catalog: %w", err)
	}
	if st.IsDir() {
		sub, err := fs.Sub(fsys, name)
		if err != nil {
			return nil, err
		}
		return Load(sub)
	}
	data, err := fs.ReadFile(fsys, name)
	if err != nil {
		return nil, fmt.Errorf("catalog: %w", err)
	}
	return LoadData(path.Base(name), data)
}

// LoadData loads a catalog from the contents of one file (every YAML
// document of it), named name in errors, as LoadFile reads a file:
// standard input, say.
func LoadData(name string, data []byte) (*Catalog, error) {
	c := &Catalog{}
	if err := c.addDocuments(name, data); err != nil {
		return nil, err
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return c, nil
}

// addDocuments adds every YAML document of a multi-document file.
func (c *Catalog) addDocuments(name string, data []byte) error {
	for i, doc := range yamldoc.Split(data) {
		if err := c.add(fmt.Sprintf("%s#%d", name, i+1), doc); err != nil {
			return err
		}
	}
	return nil
}

func (c *Catalog) add(name string, data []byte) error {
	h, f, decoded := decodeOnce(data)
	if !decoded {
		if err := yaml.Unmarshal(data, &h); err != nil {
			return fmt.Errorf("catalog file %s: %w", name, err)
		}
	}
	if h.APIVersion != APIVersion {
		return fmt.Errorf("catalog file %s: apiVersion %q, want %q", name, h.APIVersion, APIVersion)
	}
	if h.CatalogVersion == "" {
		return fmt.Errorf("catalog file %s: catalogVersion is missing", name)
	}
	if c.Version != "" && c.Version != h.CatalogVersion {
		return fmt.Errorf("catalog file %s: catalogVersion %q differs from %q", name, h.CatalogVersion, c.Version)
	}
	updated, err := time.Parse(time.DateOnly, h.Updated)
	if err != nil {
		return fmt.Errorf("catalog file %s: updated %q is not a date (YYYY-MM-DD)", name, h.Updated)
	}
	c.Version = h.CatalogVersion
	if updated.After(c.Updated) {
		c.Updated = updated
	}
	if decoded {
		c.take(f)
		return nil
	}
	// Each kind is decoded strictly into its own shape, so that a field of
	// another kind is refused; the catalog takes what the shape holds.
	switch h.Kind {
	case KindReleases:
		var rf releasesFile
		err = yaml.UnmarshalStrict(data, &rf)
		f.Releases = rf.Releases
	case KindComponents:
		var cf componentsFile
		err = yaml.UnmarshalStrict(data, &cf)
		f.Components, f.Kubernetes = cf.Components, cf.Kubernetes
	case KindCatalog:
		err = yaml.UnmarshalStrict(data, &f)
	default:
		return fmt.Errorf("catalog file %s: kind %q, want %s, %s or %s", name, h.Kind, KindReleases, KindComponents, KindCatalog)
	}
	if err != nil {
		return fmt.Errorf("catalog file %s: %w", name, cleanYAMLError(err))
	}
	c.take(f)
	return nil
}

// take appends what f lists to c.
func (c *Catalog) take(f File) {
	c.Releases = append(c.Releases, f.Releases...)
	c.Components = append(c.Components, f.Components...)
	c.Kubernetes = append(c.Kubernetes, f.Kubernetes...)
}

// decodeOnce decodes a ReleaseCatalog or ComponentCatalog file, the kinds
// of the embedded catalog, in one strict pass instead of two (its header,
// then its shape): the shape of a kind embeds the header, so when the
// file's text names the kind, decoding strictly into that shape succeeds
// and the header read says that kind, the header and the file are what the
// two passes give. Otherwise it reports false and add takes the two passes,
// which say what is wrong.
func decodeOnce(data []byte) (fileHeader, File, bool) {
	switch {
	case namesKind(data, KindReleases):
		var rf releasesFile
		if yaml.UnmarshalStrict(data, &rf) == nil && rf.Kind == KindReleases {
			return rf.fileHeader, File{Releases: rf.Releases}, true
		}
	case namesKind(data, KindComponents):
		var cf componentsFile
		if yaml.UnmarshalStrict(data, &cf) == nil && cf.Kind == KindComponents {
			return cf.fileHeader, File{Components: cf.Components, Kubernetes: cf.Kubernetes}, true
		}
	}
	return fileHeader{}, File{}, false
}

// namesKind tells whether a line of data reads "kind: <kind>"; it only
// chooses the shape decodeOnce tries.
func namesKind(data []byte, kind string) bool {
	line := "kind: " + kind
	return bytes.HasPrefix(data, []byte(line)) || bytes.Contains(data, []byte("\n"+line))
}

// cleanYAMLError drops the converter's prefix so the message names the field.
func cleanYAMLError(err error) error {
	msg := err.Error()
	msg = strings.TrimPrefix(msg, "error unmarshaling JSON: while decoding JSON: ")
	if msg == err.Error() {
		return err
	}
	return errors.New(msg)
}
