package importer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"gitlab.com/sylva-projects/sylva-planner/catalog"
	"gitlab.com/sylva-projects/sylva-planner/cell"
)

// Markers of an imported block inside a release entry of a ReleaseCatalog
// file. Everything between them is rewritten by Update; everything else
// (upgrade_from, pass_through, comments) is kept by hand.
const (
	BeginMarker = "# BEGIN imported"
	EndMarker   = "# END imported"
)

var releaseLine = regexp.MustCompile(`^  - release: "([0-9]+\.[0-9]+)"\s*$`)

// Update rewrites, in a ReleaseCatalog file, the imported block of each
// release of rels, with the notes of the ref it came from as comments. A
// release of rels that the file lacks, or whose entry has no imported
// block, is an error naming it: add the entry and the two marker lines by
// hand once, then import.
func Update(file []byte, rels []catalog.Release, notes map[string][]Note) ([]byte, error) {
	lines := strings.SplitAfter(string(file), "\n")
	type block struct{ begin, end int }
	blocks := map[string]block{}
	current := ""
	for i, l := range lines {
		if m := releaseLine.FindStringSubmatch(strings.TrimRight(l, "\n")); m != nil {
			current = m[1]
			continue
		}
		t := strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(t, BeginMarker):
			if current == "" {
				return nil, fmt.Errorf("line %d: %s outside a release entry", i+1, BeginMarker)
			}
			if _, dup := blocks[current]; dup {
				return nil, fmt.Errorf("release %s: two imported blocks", current)
			}
			blocks[current] = block{begin: i, end: -1}
		case strings.HasPrefix(t, EndMarker):
			b, ok := blocks[current]
			if !ok || b.end >= 0 {
				return nil, fmt.Errorf("line %d: %s without %s", i+1, EndMarker, BeginMarker)
			}
			b.end = i
			blocks[current] = b
		}
	}
	repl := map[int]string{} // begin line → new block
	skip := map[int]bool{}
	for _, r := range rels {
		name := r.Release.Short()
		b, ok := blocks[name]
		if !ok {
			return nil, fmt.Errorf("release %s has no imported block: add its entry with the lines %q and %q, then import again", name, "    "+BeginMarker, "    "+EndMarker)
		}
		if b.end < 0 {
			return nil, fmt.Errorf("release %s: %s has no %s", name, BeginMarker, EndMarker)
		}
		repl[b.begin] = Render(r, notes[r.ImportedFrom.Ref])
		for i := b.begin + 1; i <= b.end; i++ {
			skip[i] = true
		}
	}
	var out bytes.Buffer
	for i, l := range lines {
		if s, ok := repl[i]; ok {
			out.WriteString(s)
			continue
		}
		if !skip[i] {
			out.WriteString(l)
		}
	}
	return out.Bytes(), nil
}

// Render writes the imported block of one release entry, markers included,
// indented for the releases list, in the catalog's flow style.
func Render(r catalog.Release, notes []Note) string {
	var b strings.Builder
	src := r.ImportedFrom
	fmt.Fprintf(&b, "    %s from sylva-core %s by `make catalog`; do not edit these lines\n", BeginMarker, src.Ref)
	fmt.Fprintf(&b, "    imported_from: {ref: %s, commit: %s}\n", q(src.Ref), q(src.Commit))
	if r.Development {
		b.WriteString("    development: true\n")
	}
	b.WriteString("    kubernetes:\n")
	fmt.Fprintf(&b, "      management: %s\n", q(r.Kubernetes.Management.Short()))
	fmt.Fprintf(&b, "      management_source: %s\n", q(r.Kubernetes.ManagementSource))
	b.WriteString("      versions:\n")
	for _, k := range r.Kubernetes.Versions {
		fmt.Fprintf(&b, "        - {minor: %s, kubeadm: %s, rke2: %s, source: %s}\n", q(k.Minor.Short()), q(k.Kubeadm.String()), q(k.RKE2.String()), q(k.Source))
	}
	if len(r.Components) > 0 {
		b.WriteString("    components:\n")
		for _, c := range r.Components {
			fmt.Fprintf(&b, "      - {name: %s, version: %s", c.Name, q(c.Version.String()))
			if c.Chart != "" {
				fmt.Fprintf(&b, ", chart: %s", q(c.Chart))
			}
			fmt.Fprintf(&b, ", source: %s}\n", q(c.Source))
		}
	}
	if len(r.Units) > 0 {
		b.WriteString("    units:\n")
		for _, u := range r.Units {
			fmt.Fprintf(&b, "      - {unit: %s", u.Unit)
			if u.Chart != "" {
				fmt.Fprintf(&b, ", chart: %s", u.Chart)
			}
			fmt.Fprintf(&b, ", version: %s, source: %s}\n", q(u.Version), q(u.Source))
		}
	}
	for _, n := range notes {
		fmt.Fprintf(&b, "    # note: %s: %s\n", n.Source, cell.OneLine(n.Text))
	}
	fmt.Fprintf(&b, "    %s\n", EndMarker)
	return b.String()
}

// q quotes s as a YAML double-quoted scalar (JSON's quoting is a subset).
func q(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
