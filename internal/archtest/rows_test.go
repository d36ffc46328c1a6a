package archtest

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The folder tables of docs/architecture.md are the architecture's rules:
// a row's "may import (project)" says which packages of the module its
// packages may import, and an "I/O" that starts with "none" that they
// import no file, process or network package. The tests below read the
// page and check every package of the module against its row.

// folderHeader is the header of the page's folder tables.
const folderHeader = "| folder | decides | may import (project) | I/O |"

// layer names the paragraph a folder table follows.
type layer string

const (
	pureCoreLayer    layer = "pure core"
	applicationLayer layer = "application"
	adapterLayer     layer = "adapters"
)

// row is one row of a folder table.
type row struct {
	layer  layer
	folder string // relative to the module, without the trailing slash
	line   int
	// all is true when the row may import any package of the module;
	// else imports are the ones it may import.
	all     bool
	imports []string
	// outside are the only modules outside the standard library the row's
	// packages may link (with what they link), when the row says so
	// ("outside the standard library only `m`"); nil says nothing.
	outside []string
	// noIO is true when the I/O column starts with "none".
	noIO bool
	io   string
}

var (
	folderCell = regexp.MustCompile("^`([a-z0-9_/-]+)/`$")
	importItem = regexp.MustCompile("^`([a-z0-9_/-]+)`(?: \\([^()]*\\))?$")
	outsideRe  = regexp.MustCompile("^outside the standard library only (.+)$")
	quoted     = regexp.MustCompile("`([^`]+)`")
)

// splitCells splits a table line into its cells (a | inside a code span is
// not a separator).
func splitCells(line string) []string {
	line = strings.TrimSpace(line)
	line = strings.TrimPrefix(line, "|")
	line = strings.TrimSuffix(line, "|")
	var cells []string
	var cur strings.Builder
	inCode := false
	for _, r := range line {
		switch {
		case r == '`':
			inCode = !inCode
		case r == '|' && !inCode:
			cells = append(cells, strings.TrimSpace(cur.String()))
			cur.Reset()
			continue
		}
		cur.WriteRune(r)
	}
	return append(cells, strings.TrimSpace(cur.String()))
}

// parseImports reads a "may import (project)" cell: "—" (none), "all", or
// backquoted package paths separated by commas, each with an optional
// note in parentheses, then optionally "; " and a note on what outside
// the module the row links ("outside the standard library only `m`" is a
// rule; anything else is a remark).
func parseImports(r *row, cell string) error {
	switch cell {
	case "—":
		return nil
	case "all":
		r.all = true
		return nil
	}
	list, note, _ := strings.Cut(cell, ";")
	for item := range strings.SplitSeq(list, ",") {
		m := importItem.FindStringSubmatch(strings.TrimSpace(item))
		if m == nil {
			return fmt.Errorf("%q is no `package` (with an optional note in parentheses)", strings.TrimSpace(item))
		}
		r.imports = append(r.imports, m[1])
	}
	if m := outsideRe.FindStringSubmatch(strings.TrimSpace(note)); m != nil {
		for _, q := range quoted.FindAllStringSubmatch(m[1], -1) {
			r.outside = append(r.outside, q[1])
		}
		if len(r.outside) == 0 {
			return fmt.Errorf("%q names no `module`", note)
		}
	}
	return nil
}

// folderRows reads the folder tables of docs/architecture.md. A table
// belongs to the layer its preceding paragraph names in bold.
func folderRows(t *testing.T, root string) []row {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	var rows []row
	var cur layer
	inTable := false
	for i, line := range strings.Split(string(data), "\n") {
		switch {
		case strings.Contains(line, "**pure core**"):
			cur = pureCoreLayer
		case strings.Contains(line, "**application**"):
			cur = applicationLayer
		case strings.Contains(line, "**adapters**"):
			cur = adapterLayer
		}
		if strings.TrimSpace(line) == folderHeader {
			if cur == "" {
				t.Fatalf("docs/architecture.md:%d: a folder table before the paragraph naming its layer (**pure core**, **application**, **adapters**)", i+1)
			}
			inTable = true
			continue
		}
		if !inTable {
			continue
		}
		if !strings.HasPrefix(line, "|") {
			inTable, cur = false, ""
			continue
		}
		if strings.HasPrefix(line, "|---") {
			continue
		}
		cells := splitCells(line)
		if len(cells) != 4 {
			t.Errorf("docs/architecture.md:%d: %d cells, want 4 (%s)", i+1, len(cells), folderHeader)
			continue
		}
		m := folderCell.FindStringSubmatch(cells[0])
		if m == nil {
			t.Errorf("docs/architecture.md:%d: folder %q is not a `folder/`", i+1, cells[0])
			continue
		}
		r := row{layer: cur, folder: m[1], line: i + 1, io: cells[3], noIO: strings.HasPrefix(cells[3], "none")}
		if err := parseImports(&r, cells[2]); err != nil {
			t.Errorf("docs/architecture.md:%d: may import (project) of `%s/`: %v", i+1, r.folder, err)
			continue
		}
		rows = append(rows, r)
	}
	if len(rows) == 0 {
		t.Fatalf("docs/architecture.md holds no folder table (%s)", folderHeader)
	}
	return rows
}

// layerFolders are the folders of the rows of one layer.
func layerFolders(t *testing.T, l layer) []string {
	t.Helper()
	var out []string
	for _, r := range folderRows(t, repoRoot(t)) {
		if r.layer == l {
			out = append(out, r.folder)
		}
	}
	if len(out) == 0 {
		t.Fatalf("docs/architecture.md has no folder of the %s", l)
	}
	return out
}

// rowOf is the row that covers pkg (relative to the module): the row of
// its folder, or of the nearest folder above it.
func rowOf(rows []row, pkg string) (row, bool) {
	best, found := row{}, false
	for _, r := range rows {
		if (pkg == r.folder || strings.HasPrefix(pkg, r.folder+"/")) && len(r.folder) > len(best.folder) {
			best, found = r, true
		}
	}
	return best, found
}

// listedPackage is what go list says of one package of the module.
type listedPackage struct {
	ImportPath string
	Imports    []string
	Standard   bool
}

// modulePackages lists the non-test packages of the module (go list;
// Imports are those of the non-test files). A failing go list fails the
// test: the rules are never skipped.
func modulePackages(t *testing.T, root string) []listedPackage {
	t.Helper()
	return goList(t, root, "-json=ImportPath,Imports,Standard", "./...")
}

func goList(t *testing.T, root string, args ...string) []listedPackage {
	t.Helper()
	cmd := exec.Command("go", append([]string{"list"}, args...)...)
	cmd.Dir = root
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	var pkgs []listedPackage
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for dec.More() {
		var p listedPackage
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	if len(pkgs) == 0 {
		t.Fatalf("go list %s lists no package", strings.Join(args, " "))
	}
	return pkgs
}

// outsideTables are the folders of the page's last table ("the rest of
// the tree"), whose packages have no folder row: test helpers and the
// manifests' tests.
var outsideTables = []string{"internal", "config"}

// TestPackagesImportOnlyWhatTheirRowAllows checks every non-test package
// of the module against its row of docs/architecture.md: each project
// package it imports is its own row's or one the row lists.
func TestPackagesImportOnlyWhatTheirRowAllows(t *testing.T) {
	root := repoRoot(t)
	rows := folderRows(t, root)
	pkgs := modulePackages(t, root)
	known := map[string]bool{}
	for _, p := range pkgs {
		known[strings.TrimPrefix(p.ImportPath, module+"/")] = true
	}
	for _, r := range rows {
		if !slices.ContainsFunc(pkgs, func(p listedPackage) bool { return hasPrefix(p.ImportPath, []string{module + "/" + r.folder}) }) {
			t.Errorf("docs/architecture.md:%d: `%s/` holds no Go package", r.line, r.folder)
		}
		for _, imp := range r.imports {
			if !known[imp] {
				t.Errorf("docs/architecture.md:%d: `%s/` may import `%s`, which is no package of the module", r.line, r.folder, imp)
			}
		}
	}
	for _, p := range pkgs {
		rel := strings.TrimPrefix(p.ImportPath, module+"/")
		r, ok := rowOf(rows, rel)
		if !ok {
			if !hasPrefix(rel, outsideTables) {
				t.Errorf("%s has no row in the folder tables of docs/architecture.md", rel)
			}
			continue
		}
		for _, imp := range p.Imports {
			dep, ok := strings.CutPrefix(imp, module+"/")
			if !ok || r.all || slices.Contains(r.imports, dep) {
				continue
			}
			if dr, ok := rowOf(rows, dep); ok && dr.folder == r.folder {
				continue // within the row's own folder
			}
			t.Errorf("%s imports %s, which its row `%s/` (docs/architecture.md:%d) does not allow", rel, dep, r.folder, r.line)
		}
	}
}

// ioImports are what a row whose I/O is "none" may not import in its
// non-test files.
var ioImports = []string{"os", "os/exec", "net", "net/http"}

// TestRowsWithoutIOImportNoFileProcessOrNetwork checks the rows whose I/O
// column starts with "none": their packages' non-test files import no
// file, process or network package.
func TestRowsWithoutIOImportNoFileProcessOrNetwork(t *testing.T) {
	root := repoRoot(t)
	rows := folderRows(t, root)
	for _, p := range modulePackages(t, root) {
		rel := strings.TrimPrefix(p.ImportPath, module+"/")
		r, ok := rowOf(rows, rel)
		if !ok || !r.noIO {
			continue
		}
		for _, imp := range p.Imports {
			if slices.Contains(ioImports, imp) {
				t.Errorf("%s imports %s, but its row `%s/` (docs/architecture.md:%d) says I/O: %s", rel, imp, r.folder, r.line, r.io)
			}
		}
	}
}

// TestRowsLinkOnlyTheModulesTheyName checks the rows that say "outside the
// standard library only `m`": every package their packages link is the
// standard library's, the module's, m's or one m links.
func TestRowsLinkOnlyTheModulesTheyName(t *testing.T) {
	root := repoRoot(t)
	rows := folderRows(t, root)
	checkedRows := 0
	for _, r := range rows {
		if r.outside == nil {
			continue
		}
		checkedRows++
		allowed := map[string]bool{}
		for _, p := range goList(t, root, append([]string{"-deps", "-json=ImportPath,Standard"}, r.outside...)...) {
			allowed[p.ImportPath] = true
		}
		for _, p := range goList(t, root, "-deps", "-json=ImportPath,Standard", "./"+r.folder+"/...") {
			if p.Standard || p.ImportPath == module || strings.HasPrefix(p.ImportPath, module+"/") || allowed[p.ImportPath] {
				continue
			}
			t.Errorf("`%s/` links %s; its row (docs/architecture.md:%d) allows outside the standard library only %s", r.folder, p.ImportPath, r.line, strings.Join(r.outside, ", "))
		}
	}
	if checkedRows == 0 {
		t.Log("no row names the only modules it links")
	}
}

// TestNoTestingPackageInTheBinary keeps the testing packages out of the
// binary: no package it links imports testing or a package under it.
func TestNoTestingPackageInTheBinary(t *testing.T) {
	root := repoRoot(t)
	for _, p := range goList(t, root, "-deps", "-json=ImportPath,Imports,Standard", "./cmd/sylva-planner") {
		if p.ImportPath == "testing" || strings.HasPrefix(p.ImportPath, "testing/") {
			continue // reported at its importer
		}
		for _, imp := range p.Imports {
			if imp == "testing" || strings.HasPrefix(imp, "testing/") {
				t.Errorf("%s imports %s in non-test code, and cmd/sylva-planner links it", p.ImportPath, imp)
			}
		}
	}
}

// TestInternalIsImportedByTestsOnly: the folders under internal/ are test
// helpers, never imported by non-test code outside internal/.
func TestInternalIsImportedByTestsOnly(t *testing.T) {
	root := repoRoot(t)
	for _, p := range modulePackages(t, root) {
		rel := strings.TrimPrefix(p.ImportPath, module+"/")
		if hasPrefix(rel, []string{"internal"}) {
			continue
		}
		for _, imp := range p.Imports {
			if strings.HasPrefix(imp, module+"/internal/") {
				t.Errorf("%s imports %s in non-test code; internal/ holds test helpers only", rel, strings.TrimPrefix(imp, module+"/"))
			}
		}
	}
}
