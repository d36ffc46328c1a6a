package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"testing/fstest"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"gitlab.com/sylva-projects/sylva-planner/action"
	"gitlab.com/sylva-projects/sylva-planner/catalog"
	"gitlab.com/sylva-projects/sylva-planner/cell"
	"gitlab.com/sylva-projects/sylva-planner/envelope"
	"gitlab.com/sylva-projects/sylva-planner/fileio"
	"gitlab.com/sylva-projects/sylva-planner/skew"
)

// loadCatalog returns the catalog named by --catalog, or the embedded one.
// A catalog read from standard input is kept for the next call.
func loadCatalog(c *cli.Context) (*catalog.Catalog, error) {
	name := c.String("catalog")
	if e := envOf(c); name == fileio.StdinName && e.stdinCatalog != nil {
		return e.stdinCatalog, nil
	}
	switch name {
	case "":
		cat, err := catalog.Default()
		if err != nil {
			return nil, fmt.Errorf("embedded catalog: %w", err)
		}
		return cat, nil
	case fileio.StdinName:
		data, err := envOf(c).readFile("--catalog", name)
		if err != nil {
			return nil, err
		}
		cat, err := catalog.LoadFile(fstest.MapFS{"stdin.yaml": {Data: data}}, "stdin.yaml")
		if err != nil {
			return nil, fmt.Errorf("--catalog -: %w", err)
		}
		envOf(c).stdinCatalog = cat
		return cat, nil
	}
	abs, err := filepath.Abs(envOf(c).path(name))
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(abs); err != nil {
		// Named whole: the catalog reads its base name within its folder.
		return nil, fmt.Errorf("--catalog %s: %w; give a catalog file (sylva-planner catalog list -o yaml > catalog.yaml writes one)", name, err)
	}
	cat, err := catalog.LoadFile(fileio.DirFS(filepath.Dir(abs), envOf(c).maxInput), filepath.Base(abs))
	if err != nil {
		return nil, fmt.Errorf("--catalog %s: %w", name, err)
	}
	return cat, nil
}

func catalogCommand() *cli.Command {
	return &cli.Command{
		Name:  "catalog",
		Usage: "show the release catalog the plans are computed from (alone: catalog list)",
		// Alone, with or without -o, it is catalog list.
		Flags:     []cli.Flag{catalogFlag(), outputFlag(formatTable, formatJSON, formatYAML)},
		Action:    catalogList,
		ArgsUsage: " ",
		Subcommands: []*cli.Command{
			{
				Name:      "list",
				Usage:     "list the releases of the catalog",
				Flags:     []cli.Flag{catalogFlag(), outputFlag(formatTable, formatJSON, formatYAML)},
				Action:    catalogList,
				ArgsUsage: " ",
			},
			{
				Name:      "show",
				Usage:     "show what one release ships",
				ArgsUsage: "RELEASE",
				Flags:     []cli.Flag{catalogFlag(), outputFlag(formatTable, formatJSON, formatYAML)},
				Action:    catalogShow,
			},
			catalogImportCommand(),
		},
	}
}

func catalogList(c *cli.Context) error {
	if c.Args().Len() > 0 {
		return usageError(c, fmt.Errorf("catalog list takes no argument, got %q", c.Args().First()), true)
	}
	cat, err := loadCatalog(c)
	if err != nil {
		return withCode(exitError, err)
	}
	md, err := metadataOf(c, cat)
	if err != nil {
		return withCode(exitError, err)
	}
	// The whole catalog in one document that --catalog reads back.
	doc := cat.File(md)
	table := func(w io.Writer) error {
		fmt.Fprintf(w, "Catalog %s (updated %s)\n\n", cat.Version, cat.Updated.Format("2006-01-02"))
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "RELEASE\tMANAGEMENT K8S\tWORKLOAD K8S\tCOMPONENTS\tUPGRADE FROM")
		for _, r := range cat.Releases {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.Release, r.Kubernetes.Management.Short(), minorSpan(r), componentList(r.Components), cell.OrDash(versionList(r.UpgradeFrom)))
		}
		return tw.Flush()
	}
	return writeOutput(c, documentWriters(table, doc))
}

// catalogRelease is `catalog show -o json|yaml`: one release and the
// components it names, an excerpt that --catalog does not read (the
// releases it upgrades from are not in it; catalog list writes the whole
// catalog).
type catalogRelease struct {
	envelope.Header
	CatalogVersion string              `json:"catalogVersion"`
	Updated        string              `json:"updated"`
	Releases       []catalog.Release   `json:"releases"`
	Components     []catalog.Component `json:"components"`
}

func catalogShow(c *cli.Context) error {
	if c.Args().Len() != 1 {
		return usageError(c, fmt.Errorf("catalog show takes one release, for example: catalog show 1.6"), true)
	}
	cat, err := loadCatalog(c)
	if err != nil {
		return withCode(exitError, err)
	}
	arg := c.Args().First()
	v, err := skew.Parse(arg)
	if err != nil {
		return withCode(exitError, fmt.Errorf("release %q: %w", arg, err))
	}
	r, ok := cat.Release(v)
	if !ok {
		return withCode(exitError, fmt.Errorf("release %s is not in the catalog (known: %s)", arg, strings.Join(cat.ReleaseNames(), ", ")))
	}
	md, err := metadataOf(c, cat)
	if err != nil {
		return withCode(exitError, err)
	}
	doc := catalogRelease{
		Header: envelope.NewHeader("CatalogRelease", md), CatalogVersion: cat.Version,
		Updated: cat.Updated.Format("2006-01-02"), Releases: []catalog.Release{*r}, Components: []catalog.Component{},
	}
	for _, comp := range cat.Components {
		if _, ok := r.Component(comp.Name); ok || slices.ContainsFunc(r.PassThrough, func(rc catalog.ReleaseComponent) bool { return rc.Name == comp.Name }) {
			doc.Components = append(doc.Components, comp)
		}
	}
	return writeOutput(c, documentWriters(func(w io.Writer) error { return writeRelease(w, cat, r) }, doc))
}

// writeRelease is `catalog show` as a table.
func writeRelease(w io.Writer, cat *catalog.Catalog, r *catalog.Release) error {
	fmt.Fprintf(w, "Sylva %s\n", r.Release)
	switch {
	case r.ImportedFrom != nil && r.Development:
		fmt.Fprintf(w, "Development line, imported from sylva-core %s (commit %s)\n", r.ImportedFrom.Ref, action.ShortCommit(r.ImportedFrom.Commit))
	case r.ImportedFrom != nil:
		fmt.Fprintf(w, "Imported from sylva-core %s (commit %s)\n", r.ImportedFrom.Ref, action.ShortCommit(r.ImportedFrom.Commit))
	case r.Development:
		fmt.Fprintln(w, "Development line")
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "Management cluster Kubernetes: %s\n", r.Kubernetes.Management.Short())
	fmt.Fprintf(w, "Supported upgrade sources:     %s\n\n", cell.OrDash(versionList(r.UpgradeFrom)))
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

func versionList(vs []skew.Version) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = v.String()
	}
	return strings.Join(parts, ", ")
}

func versionCommand() *cli.Command {
	return &cli.Command{
		Name:  "version",
		Usage: "print the tool and catalog versions",
		Flags: []cli.Flag{catalogFlag(), outputFlag(formatTable, formatJSON, formatYAML)},
		Action: func(c *cli.Context) error {
			cat, err := loadCatalog(c)
			if err != nil {
				return withCode(exitError, err)
			}
			md, err := metadataOf(c, cat)
			if err != nil {
				return withCode(exitError, err)
			}
			doc := versionDocument{
				Header:  envelope.NewHeader("Version", md),
				Tool:    toolVersion{Version: toolVersionString(), Commit: commitString(), GoVersion: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH},
				Catalog: catalogVersion{Version: cat.Version, Updated: cat.Updated.Format("2006-01-02"), Oldest: cat.Oldest().Short(), Newest: cat.Newest().Short()},
			}
			table := func(w io.Writer) error {
				_, err := fmt.Fprintf(w, "sylva-planner %s\ncatalog %s (updated %s, releases %s … %s)\n",
					versionString(), cat.Version, doc.Catalog.Updated, doc.Catalog.Oldest, doc.Catalog.Newest)
				return err
			}
			return writeOutput(c, documentWriters(table, doc))
		},
	}
}

// versionDocument is `version -o json|yaml`.
type versionDocument struct {
	envelope.Header
	Tool    toolVersion    `json:"tool"`
	Catalog catalogVersion `json:"catalog"`
}

type toolVersion struct {
	Version   string `json:"version"`
	Commit    string `json:"commit,omitempty"`
	GoVersion string `json:"goVersion"`
	Platform  string `json:"platform"`
}

type catalogVersion struct {
	Version string `json:"version"`
	Updated string `json:"updated"`
	Oldest  string `json:"oldest"`
	Newest  string `json:"newest"`
}

// toolVersionString is the version stamped at build time, or, for a
// `go install …@vX` build, the module version Go recorded.
// commitString is the commit stamped by make build, else the one Go
// recorded when it built from a git checkout (vcs.revision, -dirty when
// modified), else "".
func commitString() string {
	if commit != "" {
		return commit
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	rev, dirty := "", ""
	for _, s := range bi.Settings {
		switch {
		case s.Key == "vcs.revision":
			rev = s.Value
		case s.Key == "vcs.modified" && s.Value == "true":
			dirty = "-dirty"
		}
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if rev == "" {
		return ""
	}
	return rev + dirty
}

func toolVersionString() string {
	if version != "dev" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return version
}
