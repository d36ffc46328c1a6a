package archtest

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "gitlab.com/sylva-projects/sylva-planner"

// The pure packages never read the clock, the environment or the
// standard streams, never exit, and link no cluster client, controller
// framework, process execution or Helm (values/helmengine alone links
// Helm's engine, which brings client-go; it still builds no client, and
// values/check links it only through values/helmengine). The packages
// between cmd and the core (the application layer) hold the core's rules
// too (no clock, environment, stream, cluster client or process; the live
// sources are handed in by cmd) and, as every package, no command-line
// framework. Both are the folders of their tables in docs/architecture.md
// (folderRows); a folder there that is missing fails the tests.

// checked are the packages the rules below apply to: the pure core's and
// the application layer's folders.
func checked(t *testing.T) []string {
	t.Helper()
	return append(layerFolders(t, pureCoreLayer), layerFolders(t, applicationLayer)...)
}

// linksHelm are the pure packages allowed to link Helm's engine (and so
// client-go, which it links for lookup).
var linksHelm = map[string]bool{"values/helmengine": true}

// linksThrough are the project packages through which a package may link
// what forbiddenDeps lists: values/check renders with values/helmengine
// (Helm's engine); action runs the values commands on values/helmengine,
// the CI commands on ci (git) and reconcile on reconciler (a client cmd
// builds). It still imports no client, process or network package itself
// (forbiddenImports) and builds no client: cmd hands the live sources in.
var linksThrough = map[string][]string{
	"values/check": {"values/helmengine"},
	"action":       {"values/helmengine", "ci", "reconciler"},
}

// forbiddenDeps may not be linked by a pure package, directly or not.
var forbiddenDeps = []string{
	"k8s.io/client-go",
	"sigs.k8s.io/controller-runtime",
	"helm.sh/helm",
	"os/exec",
}

// allowedDeps are exceptions to forbiddenDeps: the Flux API modules
// register their types with controller-runtime's scheme builder, which is
// apimachinery only.
var allowedDeps = []string{"sigs.k8s.io/controller-runtime/pkg/scheme"}

// forbiddenImports may not be imported by a pure package's own files
// (apimachinery links net/http, so only a direct import is refused).
var forbiddenImports = []string{"net/http", "os/exec", "k8s.io/client-go", "sigs.k8s.io/controller-runtime", "github.com/urfave/cli"}

// allowedImports are the exceptions: values/helmengine takes the lookup
// function's dynamic client type, and never builds one.
var allowedImports = map[string][]string{"values/helmengine": {"k8s.io/client-go/dynamic"}}

func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "go.mod")); err != nil {
		t.Fatalf("repository root not found from %s", dir)
	}
	return dir
}

// requireFolder fails when a listed package folder is missing.
func requireFolder(t *testing.T, root, pkg string) {
	t.Helper()
	if st, err := os.Stat(filepath.Join(root, pkg)); err != nil || !st.IsDir() {
		t.Fatalf("package folder %s is listed in internal/archtest but is missing: update internal/archtest and docs/architecture.md", pkg)
	}
}

func hasPrefix(path string, prefixes []string) bool {
	return slices.ContainsFunc(prefixes, func(p string) bool { return path == p || strings.HasPrefix(path, p+"/") })
}

func TestPureCoreLinksNoClusterClientHelmOrProcess(t *testing.T) {
	root := repoRoot(t)
	for _, pkg := range checked(t) {
		t.Run(pkg, func(t *testing.T) {
			requireFolder(t, root, pkg)
			if linksHelm[pkg] {
				t.Logf("%s links Helm's engine by design; its direct imports are checked instead", pkg)
				return
			}
			through := map[string]bool{}
			for _, q := range linksThrough[pkg] {
				for _, d := range deps(t, root, q) {
					through[d] = true
				}
			}
			for _, d := range deps(t, root, pkg) {
				if hasPrefix(d, forbiddenDeps) && !hasPrefix(d, allowedDeps) && !through[d] {
					t.Errorf("%s/%s depends on %s", module, pkg, d)
				}
			}
		})
	}
}

// deps are the import paths pkg links (go list -deps).
func deps(t *testing.T, root, pkg string) []string {
	t.Helper()
	cmd := exec.Command("go", "list", "-deps", "-json=ImportPath", "./"+pkg)
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps ./%s: %v", pkg, err)
	}
	var paths []string
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for dec.More() {
		var p struct{ ImportPath string }
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p.ImportPath)
	}
	return paths
}

// goFiles returns the non-test Go files of pkg's folder.
func goFiles(t *testing.T, root, pkg string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(root, pkg, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	files = slices.DeleteFunc(files, func(f string) bool { return strings.HasSuffix(f, "_test.go") })
	if len(files) == 0 {
		t.Fatalf("package folder %s holds no Go file", pkg)
	}
	return files
}

func TestPureCoreImportsNoNetworkProcessOrClient(t *testing.T) {
	root := repoRoot(t)
	for _, pkg := range checked(t) {
		t.Run(pkg, func(t *testing.T) {
			requireFolder(t, root, pkg)
			for _, f := range goFiles(t, root, pkg) {
				file, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
				if err != nil {
					t.Fatal(err)
				}
				for _, imp := range file.Imports {
					path, _ := strconv.Unquote(imp.Path.Value)
					if hasPrefix(path, forbiddenImports) && !slices.Contains(allowedImports[pkg], path) {
						t.Errorf("%s imports %s", filepath.Join(pkg, filepath.Base(f)), path)
					}
				}
			}
		})
	}
}

// forbiddenCalls are selector expressions core code must not use.
var forbiddenCalls = map[string]bool{
	"time.Now": true, "time.Since": true, "time.Until": true,
	"os.Exit": true, "os.Getenv": true, "os.LookupEnv": true, "os.Environ": true,
	"os.Stdout": true, "os.Stderr": true, "os.Stdin": true,
	"fmt.Print": true, "fmt.Println": true, "fmt.Printf": true,
	"log.Print": true, "log.Println": true, "log.Printf": true, "log.Fatal": true, "log.Fatalf": true,
}

func TestPureCoreReadsNoClockEnvironmentOrStreams(t *testing.T) {
	root := repoRoot(t)
	for _, pkg := range checked(t) {
		t.Run(pkg, func(t *testing.T) {
			requireFolder(t, root, pkg)
			for _, f := range goFiles(t, root, pkg) {
				fset := token.NewFileSet()
				file, err := parser.ParseFile(fset, f, nil, 0)
				if err != nil {
					t.Fatal(err)
				}
				ast.Inspect(file, func(n ast.Node) bool {
					sel, ok := n.(*ast.SelectorExpr)
					if !ok {
						return true
					}
					if id, ok := sel.X.(*ast.Ident); ok && forbiddenCalls[id.Name+"."+sel.Sel.Name] {
						t.Errorf("%s: %s/%s uses %s.%s", fset.Position(sel.Pos()), module, pkg, id.Name, sel.Sel.Name)
					}
					return true
				})
			}
		})
	}
}

// TestArchitectureNamesEveryFolder keeps docs/architecture.md complete:
// every top-level folder, and every folder under internal/, has a row
// (`cmd/sylva-planner/` counts for cmd).
func TestArchitectureNamesEveryFolder(t *testing.T) {
	root := repoRoot(t)
	doc, err := os.ReadFile(filepath.Join(root, "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	var folders []string
	for _, dir := range []string{".", "internal"} {
		entries, err := os.ReadDir(filepath.Join(root, dir))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			name := e.Name()
			if !e.IsDir() || strings.HasPrefix(name, ".") || name == "bin" {
				continue
			}
			folders = append(folders, filepath.ToSlash(filepath.Join(dir, name)))
		}
	}
	for _, f := range append(folders, checked(t)...) {
		row := regexp.MustCompile("(?m)^\\| `" + regexp.QuoteMeta(f) + "/")
		if !row.Match(doc) {
			t.Errorf("docs/architecture.md has no table row for `%s/`", f)
		}
	}
}

// platformOnly matches a constraint on the operating system alone (a
// system call that exists on Linux only, say): Go's, not the project's.
var platformOnly = regexp.MustCompile(`^//go:build !?(linux|darwin|windows|freebsd|unix)( (&&|\|\|) !?(linux|darwin|windows|freebsd|unix))*$`)

// TestOneBinaryNoBuildTags keeps one binary: no file selects itself with a
// build tag of the project's own (the platform and tools constraints of Go
// are not the project's).
func TestOneBinaryNoBuildTags(t *testing.T) {
	root := repoRoot(t)
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, line := range strings.SplitN(string(data), "\n", 5) {
			if strings.HasPrefix(line, "//go:build") && !platformOnly.MatchString(line) {
				rel, _ := filepath.Rel(root, path)
				t.Errorf("%s: %s (one binary holds every command; select behaviour at run time)", rel, line)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// startupHeavy are modules whose package initialisation every command of
// the one binary would pay at start (make bench-plan), linked only by a
// feature that can do without them: k8s.io/apiserver with its gRPC,
// OpenTelemetry and CEL came with controller-runtime's metrics filters,
// which the reconciler package replaces with two API calls (reconciler/metricsauth.go).
var startupHeavy = []string{
	"k8s.io/apiserver",
	"k8s.io/component-base/metrics",
	"google.golang.org/grpc",
	"go.opentelemetry.io",
	"github.com/google/cel-go",
}

func TestTheBinaryLinksNoStartupHeavyModule(t *testing.T) {
	root := repoRoot(t)
	cmd := exec.Command("go", "list", "-deps", "./cmd/sylva-planner")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps ./cmd/sylva-planner: %v", err)
	}
	for _, p := range strings.Fields(string(out)) {
		if hasPrefix(p, startupHeavy) {
			t.Errorf("cmd/sylva-planner links %s: every command initialises it at start", p)
		}
	}
}
