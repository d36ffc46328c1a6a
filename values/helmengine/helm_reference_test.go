package helmengine

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"gitlab.com/sylva-projects/sylva-planner/internal/sylvacore"
)

// helmReferenceFile records, per test-values case, what Helm's install
// action renders for it, so that the conformance test need not run Helm
// again while nothing it depends on changed.
var helmReferenceFile = filepath.Join("testdata", "helm-reference.txt")

// helmReference is Helm's render of one case.
type helmReference struct {
	// key names what the render depends on: the tree's commit, the case
	// and the Helm and sprig versions the test binary links.
	key string
	// helmFails is true when Helm fails to render the case, helmError its
	// first line.
	helmFails bool
	helmError string
	// sum is the fingerprint of the Secret's values without the masked
	// leaves, the ones the chart randomizes.
	sum    string
	masked []string
}

type helmReferences struct {
	mu   sync.Mutex
	refs map[string]helmReference
}

func (r *helmReferences) get(name string) (helmReference, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	h, ok := r.refs[name]
	return h, ok
}

func (r *helmReferences) put(name string, h helmReference) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.refs[name] = h
}

// loadHelmReference reads testdata/helm-reference.txt; a missing file is
// an empty reference (every case then runs Helm).
func loadHelmReference(t *testing.T) *helmReferences {
	t.Helper()
	r := &helmReferences{refs: map[string]helmReference{}}
	data, err := os.ReadFile(helmReferenceFile)
	if os.IsNotExist(err) {
		return r
	}
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 4 {
			t.Fatalf("%s:%d: want 4 tab-separated fields (case, key, sum or helm error, masked leaves), got %d", helmReferenceFile, n, len(f))
		}
		h := helmReference{key: f[1]}
		if msg, ok := strings.CutPrefix(f[2], "fails "); ok {
			uq, err := strconv.Unquote(msg)
			if err != nil {
				t.Fatalf("%s:%d: %v", helmReferenceFile, n, err)
			}
			h.helmFails, h.helmError = true, uq
		} else {
			h.sum = f[2]
		}
		if f[3] != "-" {
			h.masked = strings.Split(f[3], ",")
		}
		r.refs[f[0]] = h
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return r
}

// write rewrites testdata/helm-reference.txt, one line per case, sorted.
func (r *helmReferences) write(t *testing.T) {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	var b strings.Builder
	b.WriteString("# What Helm's install action (helm template) renders for each sylva-core test-values case:\n")
	b.WriteString("# case, key (tree commit, Helm and sprig versions), sha256 of the values Secret's leaves\n")
	b.WriteString("# (or fails \"first line of Helm's error\"), leaves the chart randomizes (left out of the sum).\n")
	b.WriteString("# Written by: go test ./values/helmengine -run TestChartValuesMatchHelm -update\n")
	for _, name := range slices.Sorted(maps.Keys(r.refs)) {
		h := r.refs[name]
		third := h.sum
		if h.helmFails {
			third = "fails " + strconv.Quote(h.helmError)
		}
		masked := "-"
		if len(h.masked) > 0 {
			masked = strings.Join(h.masked, ",")
		}
		fmt.Fprintf(&b, "%s\t%s\t%s\t%s\n", name, h.key, third, masked)
	}
	if err := os.WriteFile(helmReferenceFile, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// referenceKey names what Helm's render of a case depends on. A tree with
// no commit (a SYLVA_CORE_DIR checkout without git metadata) has no key
// that can match: its cases always run Helm.
func referenceKey(tr sylvacore.Tree, name string) string {
	if tr.Commit == "" {
		return "none"
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\n%s\n%s\n", tr.Commit, name, linkedVersions())
	return hex.EncodeToString(h.Sum(nil))[:16]
}

var linkedVersions = sync.OnceValue(func() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	var out []string
	for _, d := range bi.Deps {
		switch d.Path {
		case "helm.sh/helm/v3", "github.com/Masterminds/sprig/v3":
			v := d.Version
			if d.Replace != nil {
				v = d.Replace.Path + "@" + d.Replace.Version
			}
			out = append(out, d.Path+"@"+v)
		}
	}
	slices.Sort(out)
	return strings.Join(out, " ")
})

// fingerprint hashes a leaves map: every path with the type and value of
// its leaf, in path order.
func fingerprint(leaves map[string]any) string {
	h := sha256.New()
	for _, k := range slices.Sorted(maps.Keys(leaves)) {
		v := leaves[k]
		fmt.Fprintf(h, "%s\x00%T\x00%v\x00", k, v, v)
	}
	return hex.EncodeToString(h.Sum(nil))
}
