package catalog

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"gitlab.com/sylva-projects/sylva-planner/semver"
)

// Validate checks the catalog as a whole. Every error names the entry:
// releases and component versions must be sorted and unique, every upgrade
// source must be an older release of the catalog, every Kubernetes minor
// mapped once and in order with full versions of the same minor, the
// management minor among them, every component a release names must be
// known, with a known version; units sorted by name, each with a version
// and a source.
func (c *Catalog) Validate() error {
	if len(c.Releases) == 0 {
		return errors.New("catalog: no release")
	}
	comps, errs := c.componentErrors()
	errs = append(errs, c.kubernetesErrors()...)
	known := map[string]bool{}
	for i := range c.Releases {
		errs = append(errs, c.releaseErrors(i, known, comps)...)
	}
	return errors.Join(errs...)
}

// componentErrors decides which entries of the component catalog are
// wrong: a component must be named, once, in name order, and be valid on
// its own (componentEntryErrors). It returns the named components by name
// for the releases to be checked against, and the errors in catalog order.
func (c *Catalog) componentErrors() (map[string]*Component, []error) {
	var errs []error
	comps := map[string]*Component{}
	for i := range c.Components {
		comp := &c.Components[i]
		if comp.Name == "" {
			errs = append(errs, fmt.Errorf("catalog: component #%d has no name", i+1))
			continue
		}
		if _, dup := comps[comp.Name]; dup {
			errs = append(errs, fmt.Errorf("catalog: component %s is listed twice", comp.Name))
		}
		if i > 0 && c.Components[i-1].Name > comp.Name {
			errs = append(errs, fmt.Errorf("catalog: component %s is out of order (components are sorted by name)", comp.Name))
		}
		comps[comp.Name] = comp
		errs = append(errs, componentEntryErrors(comp)...)
	}
	return comps, errs
}

// componentEntryErrors decides what is wrong with one named component: its
// stepping must be known, its image patterns must compile with a group for
// the version, its label rules must be complete, a pin must give its
// reason, and its versions must be valid (componentVersionErrors).
func componentEntryErrors(comp *Component) []error {
	var errs []error
	switch comp.Stepping {
	case SteppingJump, SteppingMinor:
	default:
		errs = append(errs, fmt.Errorf("catalog: component %s: stepping %q (valid: minor, or none)", comp.Name, comp.Stepping))
	}
	for _, re := range comp.Images {
		rx, err := regexp.Compile(re)
		if err != nil {
			errs = append(errs, fmt.Errorf("catalog: component %s: image pattern %q: %w", comp.Name, re, err))
		} else if rx.NumSubexp() < 1 {
			errs = append(errs, fmt.Errorf("catalog: component %s: image pattern %q has no group for the version", comp.Name, re))
		}
	}
	for _, l := range comp.Labels {
		if k, v, ok := strings.Cut(l.Selector, "="); !ok || k == "" || v == "" || l.VersionLabel == "" {
			errs = append(errs, fmt.Errorf("catalog: component %s: label rule %q/%q: want selector key=value and a version_label", comp.Name, l.Selector, l.VersionLabel))
		}
	}
	if comp.Pinned && comp.PinReason == "" {
		errs = append(errs, fmt.Errorf("catalog: component %s: pinned without a pin_reason", comp.Name))
	}
	return append(errs, componentVersionErrors(comp)...)
}

// componentVersionErrors decides which versions of a component are wrong:
// each must be given, sorted oldest first without duplicates, with a valid
// Kubernetes range.
func componentVersionErrors(comp *Component) []error {
	var errs []error
	for j, v := range comp.Versions {
		if v.Version.IsZero() {
			errs = append(errs, fmt.Errorf("catalog: component %s version #%d: version is missing", comp.Name, j+1))
			continue
		}
		if j > 0 && comp.Versions[j-1].Version.Compare(v.Version) >= 0 {
			errs = append(errs, fmt.Errorf("catalog: component %s version %s: duplicate or out of order (versions are sorted oldest first)", comp.Name, v.Version))
		}
		if err := v.Kubernetes().Validate(); err != nil {
			errs = append(errs, fmt.Errorf("catalog: component %s version %s: %w", comp.Name, v.Version, err))
		}
	}
	return errs
}

// kubernetesErrors decides which entries of the catalog's Kubernetes minors
// are wrong: sorted oldest first without duplicates, each with its end of
// life.
func (c *Catalog) kubernetesErrors() []error {
	var errs []error
	for i, k := range c.Kubernetes {
		if i > 0 && c.Kubernetes[i-1].Minor.CompareMinor(k.Minor) >= 0 {
			errs = append(errs, fmt.Errorf("catalog: kubernetes %s: duplicate or out of order (sorted oldest first)", k.Minor))
		}
		if k.EndOfLife.IsZero() {
			errs = append(errs, fmt.Errorf("catalog: kubernetes %s: end_of_life is missing", k.Minor))
		}
	}
	return errs
}

// releaseErrors decides what is wrong with release #i of the catalog, known
// holding the releases before it (it adds this one once its upgrade
// sources are checked, before what it manages is): its name and place,
// its upgrade sources, the releases it manages, its units, its
// capabilities and import, its Kubernetes, and its components against
// comps. A release without a name stops there.
func (c *Catalog) releaseErrors(i int, known map[string]bool, comps map[string]*Component) []error {
	r := &c.Releases[i]
	name := r.Release.String()
	if r.Release.IsZero() {
		return []error{fmt.Errorf("catalog: release #%d: release is missing", i+1)}
	}
	errs := c.releasePlaceErrors(i, known)
	for _, src := range r.UpgradeFrom {
		if !known[src.Short()] {
			errs = append(errs, fmt.Errorf("catalog: release %s: upgrade source %s is not an older release of the catalog", name, src))
		}
	}
	known[r.Release.Short()] = true
	errs = append(errs, managesErrors(r, known)...)
	errs = append(errs, unitErrors(r)...)
	if c := r.Capabilities; c != nil && c.HoldWorkers != nil && strings.TrimSpace(c.HoldWorkers.Source) == "" {
		errs = append(errs, fmt.Errorf("catalog: release %s: capabilities.hold_workers has no source (say where the value was read, or leave the capability out: unknown means the chart cannot)", name))
	}
	if r.ImportedFrom != nil && r.ImportedFrom.Ref == "" {
		errs = append(errs, fmt.Errorf("catalog: release %s: imported_from.ref is missing", name))
	}
	errs = append(errs, validateKubernetes(name, r.Kubernetes)...)
	errs = append(errs, c.OwnMinorErrors(r)...)
	return append(errs, releaseComponentErrors(r, comps)...)
}

// releasePlaceErrors decides whether release #i is written and placed
// right: MAJOR.MINOR only, not already in known, and not older than the
// release before it.
func (c *Catalog) releasePlaceErrors(i int, known map[string]bool) []error {
	var errs []error
	r := &c.Releases[i]
	name := r.Release.String()
	if r.Release.HasPatch || r.Release.Pre != "" || r.Release.Build != "" {
		errs = append(errs, fmt.Errorf("catalog: release %s: write releases as MAJOR.MINOR", name))
	}
	if known[r.Release.Short()] {
		errs = append(errs, fmt.Errorf("catalog: release %s is listed twice", name))
	}
	if i > 0 && c.Releases[i-1].Release.Compare(r.Release) > 0 {
		errs = append(errs, fmt.Errorf("catalog: release %s is out of order (releases are sorted oldest first)", name))
	}
	return errs
}

// managesErrors decides which workload releases r says it manages are
// wrong: each needs a release and a source, must be older than r and be a
// release in known (the catalog up to r).
func managesErrors(r *Release, known map[string]bool) []error {
	var errs []error
	name := r.Release.String()
	for j, m := range r.Manages {
		switch {
		case m.Release.IsZero() || strings.TrimSpace(m.Source) == "":
			errs = append(errs, fmt.Errorf("catalog: release %s: manages #%d: release and source are required", name, j+1))
		case m.Release.CompareMinor(r.Release) >= 0:
			errs = append(errs, fmt.Errorf("catalog: release %s: manages %s: a management cluster manages older workload releases only (its own always)", name, m.Release))
		case !known[m.Release.Short()]:
			errs = append(errs, fmt.Errorf("catalog: release %s: manages %s, which is not a release of the catalog", name, m.Release))
		}
	}
	return errs
}

// unitErrors decides which units of r are wrong: each needs a unit, a
// version and a source, sorted by name without duplicates.
func unitErrors(r *Release) []error {
	var errs []error
	name := r.Release.String()
	for j, u := range r.Units {
		switch {
		case u.Unit == "" || u.Version == "" || u.Source == "":
			errs = append(errs, fmt.Errorf("catalog: release %s: unit #%d: unit, version and source are required", name, j+1))
		case j > 0 && r.Units[j-1].Unit >= u.Unit:
			errs = append(errs, fmt.Errorf("catalog: release %s: unit %s: duplicate or out of order (units are sorted by name)", name, u.Unit))
		}
	}
	return errs
}

// releaseComponentErrors decides which components and pass-through
// components of r do not match the component catalog comps: each must be
// a known component at one of its versions, and a chart version naming its
// upstream version must name this one.
func releaseComponentErrors(r *Release, comps map[string]*Component) []error {
	var errs []error
	name := r.Release.String()
	for _, list := range [][]ReleaseComponent{r.Components, r.PassThrough} {
		for _, rc := range list {
			comp, ok := comps[rc.Name]
			if !ok {
				errs = append(errs, fmt.Errorf("catalog: release %s: component %s is not in the component catalog", name, rc.Name))
				continue
			}
			if cv, ok := comp.Version(rc.Version); !ok || !cv.Matches(rc.Version) || rc.Version.IsZero() {
				errs = append(errs, fmt.Errorf("catalog: release %s: %s %s is not a version of the component catalog", name, rc.Name, rc.Version))
			}
			// A chart version that names its upstream version
			// ("105.2.0+up1.8.1") must name this one.
			if _, up, ok := strings.Cut(rc.Chart, "+up"); ok && up != rc.Version.String() {
				errs = append(errs, fmt.Errorf("catalog: release %s: %s %s: chart %s is for %s", name, rc.Name, rc.Version, rc.Chart, up))
			}
		}
	}
	return errs
}

func validateKubernetes(name string, k Kubernetes) []error {
	var errs []error
	if k.Management.IsZero() {
		errs = append(errs, fmt.Errorf("catalog: release %s: kubernetes.management is missing", name))
	}
	if len(k.Versions) == 0 {
		errs = append(errs, fmt.Errorf("catalog: release %s: kubernetes.versions is empty", name))
	}
	hasMgmt := false
	for j, kv := range k.Versions {
		if j > 0 && k.Versions[j-1].Minor.CompareMinor(kv.Minor) >= 0 {
			errs = append(errs, fmt.Errorf("catalog: release %s: kubernetes %s: duplicate or out of order", name, kv.Minor))
		}
		if kv.Minor.CompareMinor(k.Management) == 0 {
			hasMgmt = true
		}
		for _, full := range []struct {
			p Provider
			v semver.Version
		}{{ProviderKubeadm, kv.Kubeadm}, {ProviderRKE2, kv.RKE2}} {
			if full.v.IsZero() || full.v.CompareMinor(kv.Minor) != 0 || !full.v.HasPatch {
				errs = append(errs, fmt.Errorf("catalog: release %s: kubernetes %s: %s version %q is not a full version of that minor", name, kv.Minor, full.p, full.v))
			}
		}
	}
	if !k.Management.IsZero() && !hasMgmt {
		errs = append(errs, fmt.Errorf("catalog: release %s: management minor %s is not among kubernetes.versions", name, k.Management))
	}
	return errs
}

// OwnMinorErrors returns an error for each component of r whose version's
// Kubernetes range in the component catalog excludes the minor r's
// management cluster runs: a release runs its own components on its own
// Kubernetes, so such a range is a data error (typically an upstream
// "tested with" table read as a range). Each error names the component,
// its source and the minor. Workload minors are not checked: a release may
// pick a component version per minor (Longhorn 1.11.2 below Kubernetes 1.34
// in Sylva 1.7). Components or versions the component catalog lacks are
// left to Validate.
func (c *Catalog) OwnMinorErrors(r *Release) []error {
	var errs []error
	k := r.Kubernetes.Management
	if k.IsZero() {
		return nil
	}
	for _, rc := range r.Components {
		comp, ok := c.Component(rc.Name)
		if !ok {
			continue
		}
		cv, ok := comp.Version(rc.Version)
		if !ok || cv.Kubernetes().Contains(k) {
			continue
		}
		src := rc.Source
		if src == "" {
			src = "kept by hand"
		}
		errs = append(errs, fmt.Errorf("catalog: release %s: %s %s (%s) does not support Kubernetes %s, which release %s runs: the component catalog gives %s %s the range %s; a range must include the minor its own release runs (an upstream \"tested with\" table is not a range)",
			r.Release, rc.Name, rc.Version, src, k.Short(), r.Release, rc.Name, cv.Version, cv.Kubernetes()))
	}
	return errs
}
