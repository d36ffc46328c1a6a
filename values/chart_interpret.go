package values

import (
	"crypto/sha256"
	"encoding/hex"
	"path"
	"regexp"
	"text/template/parse"

	"helm.sh/helm/v3/pkg/chart"
)

// The sylva-units chart interprets the gotpl strings of its values with
// "interpret-inner-gotpl", a walk of the values tree written in gotpl: one
// include per node, and at each level the subtree written to JSON and read
// back. Most of the tree holds no gotpl; the walk returns such a subtree
// as it was (through JSON, as every result goes). The shortcut below lets
// that walk skip those subtrees, and leaves every other node to the
// chart's own definition, renamed, which the wrapper calls and which
// calls the wrapper back at each level.
//
// A subtree is returned as it is when it holds none of what the chart's
// definition acts on: "{{" (the only thing its string test matches),
// a "(raw)" key, a string that a parent unwraps ("encapsulated-result")
// or drops ("skip-as-set-only-if-result-was-false"). The wrapper finds
// them in the subtree's JSON; a null or a subtree Helm's toJson cannot
// write goes to the chart's definition.
//
// The wrapper is installed only over a definition known to be the
// identity on such subtrees: those of sylva-core 1.0 to the 1.4 line,
// recognized by the digest of their parse tree (interpretDigests). Any
// other chart renders as it is.

const (
	interpretName     = "interpret-inner-gotpl"
	interpretRenamed  = "sylva-planner-chart-interpret-inner-gotpl"
	interpretWrapFile = "_sylva-planner-interpret.tpl"
)

// interpretWrapper is the shortcut, defined under the chart's name.
const interpretWrapper = `{{- define "` + interpretName + `" -}}
{{- $sp_data := index . 1 -}}
{{- $sp_kind := kindOf $sp_data -}}
{{- if and (eq $sp_kind "string") (not (contains "{{" $sp_data)) -}}
  {{- dict "result" $sp_data | toJson -}}
{{- else if or (eq $sp_kind "map") (eq $sp_kind "slice") -}}
  {{- $sp_json := toJson $sp_data -}}
  {{- if or (eq $sp_json "") (eq $sp_json "null") (contains "{{" $sp_json) (contains "(raw)" $sp_json) (contains "encapsulated-result" $sp_json) (contains "skip-as-set-only-if-result-was-false" $sp_json) -}}
    {{- include "` + interpretRenamed + `" . -}}
  {{- else -}}
    {{- printf "{\"result\":%s}" $sp_json -}}
  {{- end -}}
{{- else -}}
  {{- include "` + interpretRenamed + `" . -}}
{{- end -}}
{{- end -}}
`

// interpretDigests are the SHA-256 digests of the parse trees of the
// definitions of "interpret-inner-gotpl" the shortcut was checked against
// (the tests of chart_interpret_test.go fail on a bundle ref whose
// definition is not here, and the conformance test renders every
// test-values case of each with it): sylva-core 1.0.0, 1.2.1, 1.3.x,
// and the 1.4 line.
var interpretDigests = map[string]string{
	"050b7dfea4220a9b170376cf33307005f242f145a1ca45bc57ef27bbb007dfa4": "1.0",
	"4403e0f797902e9553731b2ee52cc27d7147c2ec91abb68b5a7fe74b21f35d32": "1.2, 1.3",
	"1bae38e1c302852db637f01b4544ab98b4c9b62801e0dd1e308ac0dd4860cd0c": "1.4 line",
}

var defineInterpret = regexp.MustCompile(`define\s+"` + interpretName + `"`)

// withInterpretShortcut is ch with the shortcut installed when one of its
// templates holds a known definition of "interpret-inner-gotpl" (and no
// other template defines it), else ch itself. ch is not modified: the
// shortcut goes into a copy of the tree (copyChart: its own templates
// lists, the files shared).
func withInterpretShortcut(ch *chart.Chart) *chart.Chart {
	cp := copyChart(ch, false)
	var owner *chart.Chart
	var at, found int
	var walk func(c *chart.Chart)
	walk = func(c *chart.Chart) {
		for i, t := range c.Templates {
			if n := len(defineInterpret.FindAllIndex(t.Data, -1)); n > 0 {
				found += n
				owner, at = c, i
			}
		}
		for _, d := range c.Dependencies() {
			walk(d)
		}
	}
	walk(cp)
	if found != 1 || !knownInterpret(owner.Templates[at].Data) {
		return ch
	}
	t := *owner.Templates[at]
	t.Data = defineInterpret.ReplaceAll(t.Data, []byte(`define "`+interpretRenamed+`"`))
	owner.Templates[at] = &t
	owner.Templates = append(owner.Templates, &chart.File{Name: path.Join(path.Dir(t.Name), interpretWrapFile), Data: []byte(interpretWrapper)})
	return cp
}

// knownInterpret says whether the template text defines one of the
// definitions of interpretDigests.
func knownInterpret(text []byte) bool {
	d, ok := interpretDigest(text)
	return ok && interpretDigests[d] != ""
}

// interpretDigest is the digest of the parse tree of the template text's
// "interpret-inner-gotpl" definition.
func interpretDigest(text []byte) (string, bool) {
	t := parse.New("digest")
	t.Mode = parse.SkipFuncCheck
	trees := map[string]*parse.Tree{}
	if _, err := t.Parse(string(text), "", "", trees); err != nil {
		return "", false
	}
	def, ok := trees[interpretName]
	if !ok || def.Root == nil {
		return "", false
	}
	sum := sha256.Sum256([]byte(def.Root.String()))
	return hex.EncodeToString(sum[:]), true
}

var (
	wrapperCall = regexp.MustCompile(`template: [^\s:]*/` + regexp.QuoteMeta(interpretWrapFile) + `:[0-9]+:[0-9]+: executing "` + interpretName + `" at <include "` + interpretRenamed + `" \.>: error calling include: `)
	renamedExec = regexp.MustCompile(`"` + interpretRenamed + `"`)
)

// withoutShortcut is an engine message as the chart without the shortcut
// gives it: the wrapper's calls left out, the chart's definition under its
// own name.
func withoutShortcut(msg string) string {
	msg = wrapperCall.ReplaceAllLiteralString(msg, "")
	return renamedExec.ReplaceAllLiteralString(msg, `"`+interpretName+`"`)
}
