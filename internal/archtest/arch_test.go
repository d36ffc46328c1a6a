package archtest

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const module = "gitlab.com/sylva-projects/sylva-planner"

// strictCore may import nothing that talks to a cluster or the network.
var strictCore = []string{"skew", "catalog", "units", "planner"}

// pureCore never reads the clock, the environment or the standard streams,
// and never exits. values links Helm's engine (and so client-go) but still
// obeys this rule; status/kube is the live adapter and is exempt.
var pureCore = []string{"skew", "catalog", "units", "planner", "status", "values"}

var forbiddenImports = []string{
	"k8s.io/client-go",
	"sigs.k8s.io/controller-runtime",
	"net/http",
	"os/exec",
	"helm.sh/helm",
}

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

func TestCorePackagesImportNoClusterClient(t *testing.T) {
	root := repoRoot(t)
	for _, pkg := range strictCore {
		t.Run(pkg, func(t *testing.T) {
			if _, err := os.Stat(filepath.Join(root, pkg)); err != nil {
				t.Skipf("package %s does not exist yet", pkg)
			}
			cmd := exec.Command("go", "list", "-deps", "-json=ImportPath", "./"+pkg)
			cmd.Dir = root
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("go list -deps ./%s: %v", pkg, err)
			}
			dec := json.NewDecoder(strings.NewReader(string(out)))
			for dec.More() {
				var p struct{ ImportPath string }
				if err := dec.Decode(&p); err != nil {
					t.Fatal(err)
				}
				for _, bad := range forbiddenImports {
					if p.ImportPath == bad || strings.HasPrefix(p.ImportPath, bad+"/") {
						t.Errorf("%s/%s depends on %s", module, pkg, p.ImportPath)
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

func TestCorePackagesReadNoClockEnvironmentOrStreams(t *testing.T) {
	root := repoRoot(t)
	for _, pkg := range pureCore {
		dir := filepath.Join(root, pkg)
		files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
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
	}
}

// TestLiteBuildLinksNoClusterClientOrHelm keeps the lite build (what users
// run as sylva-planner) fast to start: cluster clients and Helm's engine
// live only in the full build, sylva-planner-cluster.
func TestLiteBuildLinksNoClusterClientOrHelm(t *testing.T) {
	root := repoRoot(t)
	cmd := exec.Command("go", "list", "-deps", "-tags", "lite", "./cmd/sylva-planner")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps -tags lite ./cmd/sylva-planner: %v", err)
	}
	for _, p := range strings.Fields(string(out)) {
		if strings.HasPrefix(p, "k8s.io/") || strings.HasPrefix(p, "helm.sh/") || strings.HasPrefix(p, "sigs.k8s.io/controller-runtime") || strings.HasPrefix(p, "github.com/fluxcd/") {
			t.Errorf("the lite build links %s", p)
		}
	}
}
