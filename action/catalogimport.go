package action

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strings"

	"gitlab.com/sylva-projects/sylva-planner/catalog"
	"gitlab.com/sylva-projects/sylva-planner/catalog/importer"
	"gitlab.com/sylva-projects/sylva-planner/cell"
	"gitlab.com/sylva-projects/sylva-planner/ci"
	"gitlab.com/sylva-projects/sylva-planner/envelope"
	"gitlab.com/sylva-projects/sylva-planner/fileio"
	"gitlab.com/sylva-projects/sylva-planner/semver"
)

// CatalogImportRequest is what catalog import is asked.
type CatalogImportRequest struct {
	Catalog *catalog.Catalog
	// SylvaCore names the checkout given (--sylva-core) in messages;
	// SylvaCorePath is where it is.
	SylvaCore, SylvaCorePath string
	// Refs are the --ref values (REF or REF=RELEASE); none reads every
	// release tag and branch, and main.
	Refs []string
	// Update names the ReleaseCatalog file to rewrite (--update), at
	// UpdatePath; empty rewrites nothing.
	Update, UpdatePath string
	Metadata           envelope.Metadata
}

// CatalogImport is the result of an import: its JSON and YAML document,
// and what the table shows.
type CatalogImport struct {
	envelope.Header
	Refs     []ImportedRef     `json:"refs"`
	Releases []catalog.Release `json:"releases"`
	// Updated lists the releases written into the --update file, as
	// "1.4 (from release-1.4)".
	Updated []string `json:"-"`

	results []*importer.Result
}

// ImportedRef is what one ref proves.
type ImportedRef struct {
	Ref          string                     `json:"ref"`
	Commit       string                     `json:"commit"`
	Release      string                     `json:"release"`
	Development  bool                       `json:"development,omitempty"`
	Management   string                     `json:"management,omitempty"`
	Source       string                     `json:"management_source,omitempty"`
	KubeVersions []catalog.KubeVersion      `json:"kubernetes_versions"`
	Components   []catalog.ReleaseComponent `json:"components"`
	Units        []catalog.UnitVersion      `json:"units"`
	Notes        []importer.Note            `json:"notes"`
}

// Run reads every ref of the checkout, and rewrites the --update file.
// The --update file is checked before any ref is read;
// the file is rewritten once, after the new catalog of its directory
// loaded in memory.
func (r CatalogImportRequest) Run(ctx context.Context) (*CatalogImport, error) {
	dir := r.SylvaCore
	old, err := r.readUpdate()
	if err != nil {
		return nil, err
	}
	repo := ci.Checkout{Dir: r.SylvaCorePath}
	all, released, err := checkoutRefs(ctx, repo)
	if err != nil {
		return nil, fmt.Errorf("--sylva-core %s: %w", dir, err)
	}
	specs := r.Refs
	if len(specs) == 0 {
		specs = all
	}
	refs, err := resolveRefs(ctx, repo, dir, specs)
	if err != nil {
		return nil, err
	}
	results, err := importer.ImportAll(refs, r.Catalog, released)
	if err != nil {
		return nil, fmt.Errorf("--sylva-core %s: %w", dir, err)
	}
	rels, err := importer.Releases(results)
	if err != nil {
		return nil, fmt.Errorf("--sylva-core %s: %w", dir, err)
	}
	out := &CatalogImport{Header: envelope.NewHeader("CatalogImport", r.Metadata), Releases: rels, results: results}
	if r.Update != "" {
		if err := updateCatalogFile(r.UpdatePath, old, rels, results); err != nil {
			return nil, fmt.Errorf("--update %s: %w", r.Update, err)
		}
		for _, rel := range rels {
			out.Updated = append(out.Updated, fmt.Sprintf("%s (from %s)", rel.Release, rel.ImportedFrom.Ref))
		}
	}
	for _, res := range results {
		out.Refs = append(out.Refs, importedRef(res))
	}
	return out, nil
}

// readUpdate reads the --update file, and checks that it can be
// rewritten, before any ref is read; nil without --update.
func (r CatalogImportRequest) readUpdate() ([]byte, error) {
	if r.Update == "" {
		return nil, nil
	}
	old, err := fileio.ReadFile(r.UpdatePath, fileio.DefaultMaxSize)
	if err != nil {
		return nil, fmt.Errorf("--update %s: %w", r.Update, err)
	}
	if err := fileio.CheckOutput(r.UpdatePath); err != nil {
		return nil, fmt.Errorf("--update %s: %w", r.Update, err)
	}
	return old, nil
}

// checkoutRefs lists the refs of the checkout read without --ref (its
// release tags X.Y.Z, then its branches) and the releases they name:
// main's release counts from them when the refs read do not say it
// (--ref main).
func checkoutRefs(ctx context.Context, repo ci.Checkout) ([]string, []semver.Version, error) {
	tags, branches, err := repo.Refs(ctx)
	if err != nil {
		return nil, nil, err
	}
	var all []string
	for _, t := range tags {
		if v, err := semver.Parse(t); err == nil && v.HasPatch && !strings.HasPrefix(t, "v") {
			all = append(all, t)
		}
	}
	all = append(all, branches...)
	var released []semver.Version
	for _, name := range all {
		if v, ok := refRelease(name); ok {
			released = append(released, v)
		}
	}
	return all, released, nil
}

// resolveRefs resolves each --ref REF[=RELEASE] to its commit in repo
// (named dir in messages), refusing a ref given twice and a =RELEASE that
// contradicts the ref's own.
func resolveRefs(ctx context.Context, repo ci.Checkout, dir string, specs []string) ([]importer.Ref, error) {
	var refs []importer.Ref
	seen := map[string]string{}
	for _, spec := range specs {
		name, rel, hasRel := strings.Cut(spec, "=")
		if first, ok := seen[name]; ok {
			return nil, fmt.Errorf("--ref %s: %s is given twice (first as --ref %s); give each ref once", spec, name, first)
		}
		seen[name] = spec
		ref := importer.Ref{Name: name}
		if hasRel {
			v, err := refSpecRelease(spec, name, rel)
			if err != nil {
				return nil, err
			}
			ref.Release = v
		}
		commit, err := repo.Resolve(ctx, name)
		if err != nil {
			return nil, fmt.Errorf("--sylva-core %s: %w", dir, err)
		}
		ref.Commit, ref.FS = commit, repo.FS(ctx, commit)
		refs = append(refs, ref)
	}
	return refs, nil
}

// refSpecRelease is the release of --ref name=rel. A tag or a release
// branch names its release: =RELEASE may only repeat it (a branch such
// as main names none).
func refSpecRelease(spec, name, rel string) (semver.Version, error) {
	v, err := semver.Parse(rel)
	if err != nil || v.HasPatch {
		return semver.Version{}, fmt.Errorf("--ref %s: release %q: want X.Y", spec, rel)
	}
	if own, ok := refRelease(name); ok && own.CompareMinor(v) != 0 {
		return semver.Version{}, fmt.Errorf("--ref %s: %s is release %s's; =RELEASE names the release of a branch that names none (main=1.4), so drop =%s", spec, name, own.Short(), rel)
	}
	return v, nil
}

// importedRef is what the import of one ref proves, as reported.
func importedRef(res *importer.Result) ImportedRef {
	return ImportedRef{
		Ref: res.Ref, Commit: res.Commit, Release: res.Release.String(), Development: res.Development,
		Management: shortOrEmpty(res.Management), Source: res.ManagementSource,
		KubeVersions: res.KubeVersions, Components: res.Components, Units: res.Units, Notes: res.Notes,
	}
}

func shortOrEmpty(v semver.Version) string {
	if v.IsZero() {
		return ""
	}
	return v.Short()
}

// updateCatalogFile rewrites the imported blocks of file, which holds
// data: the catalog of its directory, with the new file in place of the
// old, must load first (checked in memory, the other files read as
// --catalog DIR reads them: regular files only, up to the input limit);
// only then is the file replaced, once, atomically.
func updateCatalogFile(file string, data []byte, rels []catalog.Release, results []*importer.Result) error {
	notes := map[string][]importer.Note{}
	for _, r := range results {
		notes[r.Ref] = r.Notes
	}
	out, err := importer.Update(data, rels, notes)
	if err != nil {
		return err
	}
	if err := loadsWith(file, out); err != nil {
		return fmt.Errorf("the updated catalog does not load, so %s was left unchanged: %w", file, err)
	}
	return fileio.WriteFile(file, out, 0o644)
}

// loadsWith loads the catalog of file's directory as it would be with
// data in file.
func loadsWith(file string, data []byte) error {
	dir, base := filepath.Dir(file), filepath.Base(file)
	disk := fileio.DirFS(dir, fileio.DefaultMaxSize)
	names, err := fs.Glob(disk, "*.yaml")
	if err != nil {
		return err
	}
	files := map[string][]byte{base: data}
	for _, name := range names {
		if name == base {
			continue
		}
		b, err := fs.ReadFile(disk, name)
		if err != nil {
			return err
		}
		files[name] = b
	}
	_, err = catalog.LoadFiles(files)
	return err
}

// WriteTable writes what each ref proves, for people.
func (c *CatalogImport) WriteTable(w io.Writer) error {
	bw := bufio.NewWriter(w)
	for i, r := range c.results {
		if i > 0 {
			fmt.Fprintln(bw)
		}
		kind := "release"
		if r.Development {
			kind = "development line"
		}
		fmt.Fprintf(bw, "%s (commit %s): Sylva %s, %s\n", r.Ref, ShortCommit(r.Commit), r.Release.Short(), kind)
		if r.Management.IsZero() {
			fmt.Fprintln(bw, "  management Kubernetes: not read")
		} else {
			fmt.Fprintf(bw, "  management Kubernetes: %s  (%s)\n", r.Management.Short(), r.ManagementSource)
		}
		for _, k := range r.KubeVersions {
			fmt.Fprintf(bw, "  Kubernetes %s: kubeadm %s, rke2 %s\n", k.Minor.Short(), k.Kubeadm, k.RKE2)
		}
		var comps []string
		for _, c := range r.Components {
			comps = append(comps, c.Name+" "+c.Version.String())
		}
		fmt.Fprintf(bw, "  judged components: %s\n", cell.OrDash(strings.Join(comps, ", ")))
		for _, u := range r.Units {
			chart := u.Chart
			if chart == "" {
				chart = "release"
			}
			fmt.Fprintf(bw, "  unit %-26s %-20s %s\n", u.Unit, u.Version, chart)
		}
		for _, n := range r.Notes {
			fmt.Fprintf(bw, "  note: %s: %s\n", n.Source, cell.OneLine(n.Text))
		}
	}
	return bw.Flush()
}

// ShortCommit is the first 12 hex digits of a commit, as the tables show it.
func ShortCommit(c string) string {
	if len(c) > 12 {
		return c[:12]
	}
	return c
}

// refRelease is the release a ref names by itself: a release tag (1.3.10)
// or a release branch (release-1.3, origin/release-1.3).
func refRelease(name string) (semver.Version, bool) {
	base := name[strings.LastIndex(name, "/")+1:]
	if v, err := semver.Parse(strings.TrimPrefix(base, "release-")); err == nil && (v.HasPatch || strings.HasPrefix(base, "release-")) {
		return v, true
	}
	return semver.Version{}, false
}
