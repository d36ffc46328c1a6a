package units_test

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"

	"gitlab.com/sylva-projects/sylva-planner/envelope"
	"gitlab.com/sylva-projects/sylva-planner/internal/sylvacore"
	"gitlab.com/sylva-projects/sylva-planner/semver"
	"gitlab.com/sylva-projects/sylva-planner/units"
)

var writeGenerated = flag.String("write-generated", "", "write the generated 200-unit values file of BenchmarkAudit to this path")

// generatedValues returns sylva-units values with n units and t unit
// templates: every unit uses two templates and depends on earlier units;
// one unit in ten is transitional, one in twenty-five a one_shot without
// metadata.
func generatedValues(n, t int) []byte {
	var b strings.Builder
	b.WriteString("sylva_release: 1.7-pre\nunit_definition_defaults:\n  enabled: true\n  repo: sylva-core\n  depends_on:\n    namespace-defs: true\n  kustomization_spec:\n    prune: true\n    interval: 24h\nunit_templates:\n")
	for i := range t {
		fmt.Fprintf(&b, "  tmpl-%02d:\n    info:\n      maturity: stable\n    depends_on:\n      unit-%03d: true\n    kustomization_spec:\n      path: ./kustomize-units/tmpl-%02d\n      wait: %t\n", i, i, i, i%2 == 0)
	}
	b.WriteString("units:\n  namespace-defs:\n    info:\n      description: namespaces\n")
	for i := range n {
		fmt.Fprintf(&b, "  unit-%03d:\n    unit_templates: [tmpl-%02d, tmpl-%02d]\n    info:\n      description: generated unit %d\n", i, i%t, (i*7+3)%t, i)
		switch {
		case i%10 == 5:
			fmt.Fprintf(&b, "      transitional-unit: from-1.%d\n", 2+i%5)
		case i%25 == 3:
			b.WriteString("      details: will be removed after Sylva 1.5\n")
		}
		if i%25 == 7 {
			b.WriteString("    one_shot: true\n")
		}
		switch {
		case i > 2:
			fmt.Fprintf(&b, "    depends_on:\n      unit-%03d: true\n      unit-%03d: '{{ .Values.x }}'\n", i-1, i/2)
		case i > 0:
			fmt.Fprintf(&b, "    depends_on:\n      unit-%03d: true\n", i-1)
		}
		if i%3 == 0 {
			b.WriteString("    enabled_conditions:\n      - '{{ .Values.cluster.enabled }}'\n")
		}
	}
	return []byte(b.String())
}

func TestGeneratedValuesParse(t *testing.T) {
	data := generatedValues(200, 20)
	if *writeGenerated != "" {
		if err := os.WriteFile(*writeGenerated, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	v, err := units.Parse(units.File{Name: "generated.yaml", Data: data})
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Units) != 201 || len(v.Templates) != 20 {
		t.Fatalf("generated values have %d units and %d templates, want 201 and 20", len(v.Units), len(v.Templates))
	}
}

// BenchmarkAudit measures parsing 200 units built from 20 templates, the
// audit and the JSON output.
func BenchmarkAudit(b *testing.B) {
	data := generatedValues(200, 20)
	p, _ := policy(b)
	rel := semver.MustParse("1.7")
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		v, err := units.Parse(units.File{Name: "generated.yaml", Data: data})
		if err != nil {
			b.Fatal(err)
		}
		r, err := units.Audit(units.AuditInput{Values: v, Release: rel, Policy: p})
		if err != nil {
			b.Fatal(err)
		}
		if err := envelope.WriteJSON(io.Discard, r.Document()); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAuditRealMain measures the literal prune audit of the real
// chart's main with the management values: merging the two files,
// building every unit, the audit and the JSON output.
func BenchmarkAuditRealMain(b *testing.B) {
	tree := sylvacore.At(b, "main")
	files := readChartFiles(b, tree, "values.yaml", "management.values.yaml")
	p, _ := policy(b)
	rel := semver.MustParse("1.4")
	var size int64
	for _, f := range files {
		size += int64(len(f.Data))
	}
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		v, err := units.Parse(files...)
		if err != nil {
			b.Fatal(err)
		}
		r, err := units.Audit(units.AuditInput{Values: v, Release: rel, Policy: p})
		if err != nil {
			b.Fatal(err)
		}
		if err := envelope.WriteJSON(io.Discard, r.Document()); err != nil {
			b.Fatal(err)
		}
	}
}
