package units_test

import (
	"bytes"
	"testing"

	"gitlab.com/sylva-projects/sylva-planner/envelope"
	"gitlab.com/sylva-projects/sylva-planner/semver"
	"gitlab.com/sylva-projects/sylva-planner/units"
)

// FuzzParse checks that any pair of values files either fails to parse with
// an error or parses into units the audit can classify, deterministically.
func FuzzParse(f *testing.F) {
	base := readFixtures(f, fixtureFiles[0])[0].Data
	overlay := readFixtures(f, fixtureFiles[1])[0].Data
	f.Add(base, overlay)
	f.Add([]byte("units: {a: {info: {transitional-unit: from-1.4}}, b: {depends_on: {a: true}}}"), []byte("units: {b: null}"))
	f.Add([]byte("unit_templates: {t: {enabled: false}}\nunits: {u: {unit_templates: [t, t]}}"), []byte(""))
	f.Add([]byte("units: {a: {info: {transitional-unit: 1.30}}}"), []byte("units: {a: {info: null}}"))
	f.Add([]byte("sylva_release: 1.7-pre"), []byte("- a"))
	p, _ := policy(f)
	f.Fuzz(func(t *testing.T, a, b []byte) {
		v, err := units.Parse(units.File{Name: "a.yaml", Data: a}, units.File{Name: "b.yaml", Data: b})
		if err != nil {
			return
		}
		for _, u := range v.Units {
			if err := units.ValidName(u.Name); err != nil {
				t.Fatalf("Parse accepted an invalid unit name: %v", err)
			}
		}
		_, _ = units.ReleaseOf(v, "", "for example --release 1.7")
		var out [2]bytes.Buffer
		for i := range out {
			r, err := units.Audit(units.AuditInput{Values: v, Release: semver.MustParse("1.7"), Policy: p})
			if err != nil {
				t.Fatalf("Audit() error = %v", err)
			}
			if err := envelope.WriteJSON(&out[i], r.Document()); err != nil {
				t.Fatal(err)
			}
		}
		if !bytes.Equal(out[0].Bytes(), out[1].Bytes()) {
			t.Fatalf("two audits of the same values differ")
		}
	})
}
