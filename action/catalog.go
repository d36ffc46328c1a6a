package action

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"text/tabwriter"

	"gitlab.com/sylva-projects/sylva-planner/catalog"
	"gitlab.com/sylva-projects/sylva-planner/cell"
	"gitlab.com/sylva-projects/sylva-planner/envelope"
	"gitlab.com/sylva-projects/sylva-planner/semver"
)

// CatalogList is `catalog list`: the whole catalog, whose document
// (File) --catalog reads back.
type CatalogList struct {
	Catalog *catalog.Catalog
}

// Document is the catalog as one document.
func (l CatalogList) Document(md envelope.Metadata) any { return l.Catalog.File(md) }

// WriteTable writes one row per release.
func (l CatalogList) WriteTable(w io.Writer) error {
	cat := l.Catalog
	fmt.Fprintf(w, "Catalog %s (updated %s)\n\n", cat.Version, cat.Updated.Format("2006-01-02"))
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "RELEASE\tMANAGEMENT K8S\tWORKLOAD K8S\tCOMPONENTS\tUPGRADE FROM")
	for _, r := range cat.Releases {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.Release, r.Kubernetes.Management.Short(), minorSpan(r), componentList(r.Components), cell.OrDash(versionList(r.UpgradeFrom)))
	}
	return tw.Flush()
}

// CatalogShowRequest is `catalog show RELEASE`.
type CatalogShowRequest struct {
	Catalog  *catalog.Catalog
	Release  string
	Metadata envelope.Metadata
}

// CatalogRelease is `catalog show -o json|yaml`: one release and the
// components it names, an excerpt that --catalog does not read (the
// releases it upgrades from are not in it; catalog list writes the whole
// catalog).
type CatalogRelease struct {
	envelope.Header
	CatalogVersion string              `json:"catalogVersion"`
	Updated        string              `json:"updated"`
	Releases       []catalog.Release   `json:"releases"`
	Components     []catalog.Component `json:"components"`

	cat *catalog.Catalog
}

// Run finds the release; one not in the catalog is an error naming the
// known ones.
func (r CatalogShowRequest) Run() (*CatalogRelease, error) {
	v, err := semver.Parse(r.Release)
	if err != nil {
		return nil, fmt.Errorf("release %q: %w", r.Release, err)
	}
	rel, ok := r.Catalog.Release(v)
	if !ok {
		return nil, fmt.Errorf("release %s is not in the catalog (known: %s)", r.Release, strings.Join(r.Catalog.ReleaseNames(), ", "))
	}
	doc := &CatalogRelease{
		Header: envelope.NewHeader("CatalogRelease", r.Metadata), CatalogVersion: r.Catalog.Version,
		Updated: r.Catalog.Updated.Format("2006-01-02"), Releases: []catalog.Release{*rel}, Components: []catalog.Component{},
		cat: r.Catalog,
	}
	for _, comp := range r.Catalog.Components {
		if _, ok := rel.Component(comp.Name); ok || slices.ContainsFunc(rel.PassThrough, func(rc catalog.ReleaseComponent) bool { return rc.Name == comp.Name }) {
			doc.Components = append(doc.Components, comp)
		}
	}
	return doc, nil
}

// WriteTable is `catalog show` as a table.
func (d *CatalogRelease) WriteTable(w io.Writer) error {
	r, cat := &d.Releases[0], d.cat
	fmt.Fprintf(w, "Sylva %s\n", r.Release)
	switch {
	case r.ImportedFrom != nil && r.Development:
		fmt.Fprintf(w, "Development line, imported from sylva-core %s (commit %s)\n", r.ImportedFrom.Ref, ShortCommit(r.ImportedFrom.Commit))
	case r.ImportedFrom != nil:
		fmt.Fprintf(w, "Imported from sylva-core %s (commit %s)\n", r.ImportedFrom.Ref, ShortCommit(r.ImportedFrom.Commit))
	case r.Development:
		fmt.Fprintln(w, "Development line")
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "Management cluster Kubernetes: %s\n", r.Kubernetes.Management.Short())
	fmt.Fprintf(w, "Supported upgrade sources:     %s\n", cell.OrDash(versionList(r.UpgradeFrom)))
	fmt.Fprintf(w, "Holds the workers back:        %s\n\n", holdWorkers(r))
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "KUBERNETES\tKUBEADM\tRKE2")
	for _, k := range r.Kubernetes.Versions {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", k.Minor.Short(), k.Kubeadm, k.RKE2)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "COMPONENT\tVERSION\tKUBERNETES\tROLE")
	for _, rc := range r.Components {
		fmt.Fprintf(tw, "%s\t%s\t%s\tshipped\n", rc.Name, rc.Version, componentRange(cat, rc))
	}
	for _, rc := range r.PassThrough {
		fmt.Fprintf(tw, "%s\t%s\t%s\tpass-through step\n", rc.Name, rc.Version, componentRange(cat, rc))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(r.Units) == 0 {
		return nil
	}
	// Unit versions are information: the gate judges the components above.
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "UNIT\tVERSION\tCHART\tSOURCE")
	for _, u := range r.Units {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", u.Unit, u.Version, cell.OrDash(u.Chart), u.Source)
	}
	return tw.Flush()
}

func componentRange(cat *catalog.Catalog, rc catalog.ReleaseComponent) string {
	comp, ok := cat.Component(rc.Name)
	if !ok {
		return "?"
	}
	cv, ok := comp.Version(rc.Version)
	if !ok {
		return "?"
	}
	return cv.Kubernetes().String()
}

func minorSpan(r catalog.Release) string {
	v := r.Kubernetes.Versions
	if len(v) == 0 {
		return "-"
	}
	return v[0].Minor.Short() + "–" + v[len(v)-1].Minor.Short()
}

func componentList(cs []catalog.ReleaseComponent) string {
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = c.Name + " " + c.Version.String()
	}
	return cell.OrDash(strings.Join(parts, ", "))
}

func versionList(vs []semver.Version) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = v.String()
	}
	return strings.Join(parts, ", ")
}

// Version is `version -o json|yaml`: this binary and the catalog it
// plans with.
type Version struct {
	envelope.Header
	Tool    ToolVersion    `json:"tool"`
	Catalog CatalogVersion `json:"catalog"`
}

// ToolVersion is the build of this binary.
type ToolVersion struct {
	Version   string `json:"version"`
	Commit    string `json:"commit,omitempty"`
	GoVersion string `json:"goVersion"`
	Platform  string `json:"platform"`
}

// BuildToolVersion is the build of this binary: version and commit as
// stamped at build time (make build), else what Go recorded: the module
// version of a `go install …@vX` build, and the commit of a build from a
// git checkout (vcs.revision, shortened, -dirty when modified).
func BuildToolVersion(version, commit string) ToolVersion {
	tv := ToolVersion{Version: version, Commit: commit, GoVersion: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return tv
	}
	if tv.Version == "dev" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		tv.Version = bi.Main.Version
	}
	if tv.Commit == "" {
		tv.Commit = recordedCommit(bi)
	}
	return tv
}

// recordedCommit is the commit Go recorded in bi, or "".
func recordedCommit(bi *debug.BuildInfo) string {
	rev, dirty := "", ""
	for _, s := range bi.Settings {
		switch {
		case s.Key == "vcs.revision":
			rev = s.Value
		case s.Key == "vcs.modified" && s.Value == "true":
			dirty = "-dirty"
		}
	}
	if rev == "" {
		return ""
	}
	return rev[:min(len(rev), 12)] + dirty
}

// CatalogVersion is the catalog's version and the releases it spans.
type CatalogVersion struct {
	Version string `json:"version"`
	Updated string `json:"updated"`
	Oldest  string `json:"oldest"`
	Newest  string `json:"newest"`
}

// NewVersion is the version document of tool with catalog cat.
func NewVersion(md envelope.Metadata, tool ToolVersion, cat *catalog.Catalog) Version {
	return Version{
		Header:  envelope.NewHeader("Version", md),
		Tool:    tool,
		Catalog: CatalogVersion{Version: cat.Version, Updated: cat.Updated.Format("2006-01-02"), Oldest: cat.Oldest().Short(), Newest: cat.Newest().Short()},
	}
}

// String is the version, with the commit when known: "1.2.0 (abc123)".
func (t ToolVersion) String() string {
	if t.Commit != "" {
		return t.Version + " (" + t.Commit + ")"
	}
	return t.Version
}

// WriteTable writes the two versions on two lines.
func (v Version) WriteTable(w io.Writer) error {
	_, err := fmt.Fprintf(w, "sylva-planner %s\ncatalog %s (updated %s, releases %s … %s)\n", v.Tool, v.Catalog.Version, v.Catalog.Updated, v.Catalog.Oldest, v.Catalog.Newest)
	return err
}

// holdWorkers says whether the release's chart holds the MachineDeployments
// back during a pass, and where that was read; unknown is read by the
// planner as no, and says so.
func holdWorkers(r *catalog.Release) string {
	if r.Capabilities == nil || r.Capabilities.HoldWorkers == nil {
		return "unknown (planned as no: the workers roll on every pass that changes Kubernetes)"
	}
	c := r.Capabilities.HoldWorkers
	if c.Value {
		return "yes (read from " + c.Source + ")"
	}
	return "no (read from " + c.Source + ")"
}
