package archtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// outsideRoots are first path elements that name something outside this
// repository, which the docs may name freely.
var outsideRoots = map[string]string{
	"bin":                "the build outputs (make), not in the tree",
	"charts":             "sylva-core's tree: the sylva-units chart",
	"sylva-units":        "sylva-core's tree: the sylva-units chart",
	"templates":          "sylva-core's tree: the chart's templates",
	"kustomize-units":    "sylva-core's tree",
	"environment-values": "sylva-core's tree",
	"test-values":        "sylva-core's tree",
	"tools":              "sylva-core's tree",
	"shared":             "the shared folder beside the repository",
	"share":              "a system path (PREFIX/share/man/man1)",
	"my-env":             "a user's environment-values directory",
	"namespace":          "a unit named as namespace/unit",
	"sylva-system":       "an object named as namespace/name",
	"cm":                 "an object named as kind/name (kubectl)",
	"configmap":          "an object named as kind/name (kubectl)",
	"origin":             "a remote-tracking git branch (origin/release-1.3)",
	"helmreleases":       "an object named as kind/name (kubectl)",
	"kustomizations":     "an object named as kind/name (kubectl)",
	"core":               "an object named as group/version/kind/namespace/name (--allow-lookup)",
	"v1":                 "an object named as version/kind/namespace/name (--allow-lookup)",
}

var (
	// fence is a fenced code block.
	fence = regexp.MustCompile("(?ms)^[ \t]*```.*?^[ \t]*```")
	// codeSpan is an inline code span (it may wrap lines).
	codeSpan = regexp.MustCompile("`[^`]+`")
	// pathToken is a word with a slash, or one starting with ./ ; the
	// character before it is checked apart (Go's regexp has no look-behind).
	pathToken = regexp.MustCompile(`\.\.?/[A-Za-z0-9_.$/-]*|[A-Za-z0-9_][A-Za-z0-9_.-]*(?:/[A-Za-z0-9_.$-]*)+`)
	// goSelector is a Go identifier after a package path
	// (inventory/inventorykube.Collect).
	goSelector = regexp.MustCompile(`\.[A-Z].*$`)
)

// codePaths returns the paths of this repository text names in its code
// (inline spans and fenced blocks), as written, without duplicates: a
// word starting with ./ (a Go package pattern such as ./values/...), or
// a word with a slash whose first element is not outside the repository
// (outsideRoots), a host (k8s.io/api), a placeholder (DIR/, NS/) or a
// standard library package (net/http). A Go selector after a package
// (status/statuskube.Read) is left out.
func codePaths(text string, std map[string]bool) []string {
	var code []string
	code = append(code, fence.FindAllString(text, -1)...)
	code = append(code, codeSpan.FindAllString(fence.ReplaceAllString(text, ""), -1)...)
	var out []string
	for _, c := range code {
		for _, loc := range pathToken.FindAllStringIndex(c, -1) {
			if loc[0] > 0 && strings.IndexByte(`/.$:@~-_\`, c[loc[0]-1]) >= 0 {
				continue // part of a URL, a flag's name or a longer path
			}
			tok := strings.TrimRight(c[loc[0]:loc[1]], ".")
			if p, ok := repoPath(tok, std); ok && !slices.Contains(out, p) {
				out = append(out, p)
			}
		}
	}
	return out
}

// repoPath returns the path tok names in this repository, relative to its
// root, when it names one; std are the standard library's packages.
func repoPath(tok string, std map[string]bool) (string, bool) {
	if strings.HasPrefix(tok, "../") {
		return "", false
	}
	p, local := strings.CutPrefix(tok, "./")
	p = strings.TrimSuffix(strings.TrimSuffix(p, "..."), "/")
	if p == "" || p == "." {
		return ".", true
	}
	if !local {
		first, _, _ := strings.Cut(p, "/")
		if strings.Contains(first, ".") || first != strings.ToLower(first) || outsideRoots[first] != "" || strings.Contains(p, "$") {
			return "", false
		}
		if std[p] {
			return "", false
		}
	}
	return goSelector.ReplaceAllString(p, ""), true
}

// stdPackages are the standard library's packages (go list std).
func stdPackages(t *testing.T) map[string]bool {
	t.Helper()
	out, err := exec.Command("go", "list", "std").Output()
	if err != nil {
		t.Fatalf("go list std: %v", err)
	}
	std := map[string]bool{}
	for _, p := range strings.Fields(string(out)) {
		std[p] = true
	}
	return std
}

func TestCodePathsOfADoc(t *testing.T) {
	std := stdPackages(t)
	tests := []struct {
		name, text string
		want       []string
	}{
		{"a Go package pattern in a command is a path", "run `go test ./values/... -short`", []string{"values"}},
		{"a folder written with its slash is a path", "the knowledge base is in `removedapis/`", []string{"removedapis"}},
		{"a file under a folder is a path", "see `reconciler/metricsauth.go`", []string{"reconciler/metricsauth.go"}},
		{"every package is a path", "`go test ./...`", []string{"."}},
		{"a span may wrap lines", "part of `go test\n./flux` runs", []string{"flux"}},
		{"a path in a fenced block counts", "```\ngo generate ./apis\n```", []string{"apis"}},
		{"a Go selector is left out", "`inventory/inventorykube.Collect`", []string{"inventory/inventorykube"}},
		{"prose outside code is not read", "the flux/ folder", nil},
		{"a host is outside", "`k8s.io/api` and `helm.toolkit.fluxcd.io/v2`", nil},
		{"a URL is outside", "`https://example.org/a/b`", nil},
		{"a placeholder is outside", "`DIR/kustomization.yaml` and `NS/`", nil},
		{"the standard library is outside", "`net/http` and `os/exec`", nil},
		{"sylva-core's tree is outside", "`charts/sylva-units/values.yaml`", nil},
		{"a path above the repository is outside", "`../shared/sylva-core/sylva-core.bundle`", nil},
		{"a JSON pointer is outside", `"path": "/$defs/unit_info/properties/x"` + "\n`/$defs/unit_info`", nil},
		{"a flag's value is read", "`--inventory=testdata/`", []string{"testdata"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, codePaths(tt.text, std)); diff != "" {
				t.Errorf("codePaths(%q) (-want +got):\n%s", tt.text, diff)
			}
		})
	}
}

// TestDocsNameOnlyPathsThatExist fails when README.md or a page of docs/
// names in its code a folder, Go package or file of this repository that
// does not exist (a package renamed or removed, a typo).
func TestDocsNameOnlyPathsThatExist(t *testing.T) {
	root := repoRoot(t)
	std := stdPackages(t)
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, doc := range append([]string{filepath.Join(root, "README.md")}, docs...) {
		text, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, doc)
		for _, p := range codePaths(string(text), std) {
			if _, err := os.Stat(filepath.Join(root, p)); err != nil {
				t.Errorf("%s names `%s`, which is not in the repository: fix the path, or, when it names something outside the repository, add its first element to outsideRoots in internal/archtest", rel, p)
			}
		}
	}
}
