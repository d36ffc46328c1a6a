package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"gitlab.com/sylva-projects/sylva-planner/catalog"
	"gitlab.com/sylva-projects/sylva-planner/catalog/importer"
	"gitlab.com/sylva-projects/sylva-planner/cell"
	"gitlab.com/sylva-projects/sylva-planner/ci"
	"gitlab.com/sylva-projects/sylva-planner/envelope"
	"gitlab.com/sylva-projects/sylva-planner/fileio"
	"gitlab.com/sylva-projects/sylva-planner/skew"
)

func catalogImportCommand() *cli.Command {
	return &cli.Command{
		Name:  "import",
		Usage: "read what sylva-core's release tags and branches prove about each release",
		Description: "Reads, at each --ref of a sylva-core git checkout (a tag such as 1.3.10, a branch such as\n" +
			"release-1.3 or main; by default every release tag, release branch and main), the management\n" +
			"cluster's k8s_version_short, the full Kubernetes version per bootstrap provider of\n" +
			"_internal.k8s_version_map, and the version each known unit deploys (Helm chart versions, or\n" +
			"the upstream release a Kustomize unit applies), each with its source REF:PATH#KEY. A value\n" +
			"that needs gotpl interpretation is left out with a note, never guessed. A unit version\n" +
			"becomes a component the gate judges only when the component catalog (--catalog, or the\n" +
			"embedded one) has its Kubernetes range.\n\n" +
			"--update FILE rewrites the imported block of each release entry of that ReleaseCatalog file\n" +
			"(one release per Sylva minor: a release branch wins over tags of its minor, the highest tag\n" +
			"over the others, main is a development line). A ref's release is its tag's or branch's minor;\n" +
			"main's is its sylva_release, else the one after the newest other ref, or name it: --ref main=1.4.\n\n" +
			"Example: sylva-planner catalog import --sylva-core ../sylva-core --ref 1.3.10 --ref main",
		ArgsUsage: " ",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "sylva-core", Usage: "a sylva-core git checkout or clone `DIR` (required)", EnvVars: []string{"SYLVA_PLANNER_SYLVA_CORE"}, TakesFile: true},
			&cli.StringSliceFlag{Name: "ref", Usage: "a tag or branch to read, as `REF` or REF=RELEASE (repeatable; default: every release tag and branch, and main)"},
			&cli.StringFlag{Name: "update", Usage: "rewrite the imported blocks of this ReleaseCatalog `FILE`", TakesFile: true},
			outputFlag(formatTable, formatJSON, formatYAML),
			catalogFlag(),
		},
		Action: catalogImport,
	}
}

// importReport is the JSON and YAML form of an import.
type importReport struct {
	envelope.Header
	Refs     []importedRef     `json:"refs"`
	Releases []catalog.Release `json:"releases"`
}

type importedRef struct {
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

func catalogImport(c *cli.Context) error {
	if err := noArgs(c); err != nil {
		return err
	}
	if c.String("sylva-core") == "" {
		// Checked here, not by urfave/cli's Required, which prints the
		// whole help: a usage error is one line.
		return usageError(c, errors.New("--sylva-core is required: give a sylva-core git checkout, for example --sylva-core ../sylva-core"), true)
	}
	e := envOf(c)
	cat, err := loadCatalog(c)
	if err != nil {
		return withCode(exitError, err)
	}
	dir := c.String("sylva-core")
	repo := ci.Checkout{Dir: e.path(dir)}
	specs := c.StringSlice("ref")
	if len(specs) == 0 {
		tags, branches, err := repo.Refs(c.Context)
		if err != nil {
			return withCode(exitError, fmt.Errorf("--sylva-core %s: %w", dir, err))
		}
		for _, t := range tags {
			if v, err := skew.Parse(t); err == nil && v.HasPatch && !strings.HasPrefix(t, "v") {
				specs = append(specs, t)
			}
		}
		specs = append(specs, branches...)
	}
	var refs []importer.Ref
	for _, spec := range specs {
		name, rel, hasRel := strings.Cut(spec, "=")
		ref := importer.Ref{Name: name}
		if hasRel {
			v, err := skew.Parse(rel)
			if err != nil || v.HasPatch {
				return withCode(exitError, fmt.Errorf("--ref %s: release %q: want X.Y", spec, rel))
			}
			ref.Release = v
		}
		commit, err := repo.Resolve(c.Context, name)
		if err != nil {
			return withCode(exitError, fmt.Errorf("--sylva-core %s: %w", dir, err))
		}
		ref.Commit, ref.FS = commit, repo.FS(c.Context, commit)
		refs = append(refs, ref)
	}
	results, err := importer.ImportAll(refs, cat)
	if err != nil {
		return withCode(exitError, fmt.Errorf("--sylva-core %s: %w", dir, err))
	}
	rels, err := importer.Releases(results)
	if err != nil {
		return withCode(exitError, fmt.Errorf("--sylva-core %s: %w", dir, err))
	}
	if file := c.String("update"); file != "" {
		if err := updateCatalogFile(e.path(file), rels, results); err != nil {
			return withCode(exitError, fmt.Errorf("--update %s: %w", file, err))
		}
		var names []string
		for _, r := range rels {
			names = append(names, fmt.Sprintf("%s (from %s)", r.Release, r.ImportedFrom.Ref))
		}
		fmt.Fprintf(e.stderr, "updated %s: %s\n", file, strings.Join(names, ", "))
	}
	md, err := metadataOf(c, cat)
	if err != nil {
		return withCode(exitError, err)
	}
	rep := importReport{Header: envelope.NewHeader("CatalogImport", md), Releases: rels}
	for _, r := range results {
		rep.Refs = append(rep.Refs, importedRef{
			Ref: r.Ref, Commit: r.Commit, Release: r.Release.String(), Development: r.Development,
			Management: shortOrEmpty(r.Management), Source: r.ManagementSource,
			KubeVersions: r.KubeVersions, Components: r.Components, Units: r.Units, Notes: r.Notes,
		})
	}
	table := func(w io.Writer) error { return writeImportTable(w, results) }
	return writeOutput(c, documentWriters(table, rep))
}

func shortOrEmpty(v skew.Version) string {
	if v.IsZero() {
		return ""
	}
	return v.Short()
}

// updateCatalogFile rewrites the imported blocks of file, then checks that
// the catalog of its directory still loads.
func updateCatalogFile(file string, rels []catalog.Release, results []*importer.Result) error {
	data, err := fileio.ReadFile(file, fileio.DefaultMaxSize)
	if err != nil {
		return err
	}
	notes := map[string][]importer.Note{}
	for _, r := range results {
		notes[r.Ref] = r.Notes
	}
	out, err := importer.Update(data, rels, notes)
	if err != nil {
		return err
	}
	if err := fileio.WriteFile(file, out, 0o644); err != nil {
		return err
	}
	// The catalog of the file's directory must still load; if not, the
	// file is put back as it was.
	if _, err := catalog.Load(os.DirFS(filepath.Dir(file))); err != nil {
		return errors.Join(fmt.Errorf("the updated catalog does not load, so %s was left unchanged: %w", file, err), fileio.WriteFile(file, data, 0o644))
	}
	return nil
}

func writeImportTable(w io.Writer, results []*importer.Result) error {
	bw := bufio.NewWriter(w)
	for i, r := range results {
		if i > 0 {
			fmt.Fprintln(bw)
		}
		kind := "release"
		if r.Development {
			kind = "development line"
		}
		fmt.Fprintf(bw, "%s (commit %s): Sylva %s, %s\n", r.Ref, shortCommit(r.Commit), r.Release.Short(), kind)
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

func shortCommit(c string) string {
	if len(c) > 12 {
		return c[:12]
	}
	return c
}
