package helmengine

import (
	"crypto/sha256"
	"encoding/hex"
	"path"
	"regexp"
	"strings"
	"text/template/parse"

	"helm.sh/helm/v3/pkg/chart"
)

// The sylva-units chart interprets the gotpl strings of its values with
// "interpret-inner-gotpl", a walk of the values tree written in gotpl: one
// include per node (keys included), at each level the subtree written to
// JSON and read back, and for each string two to three regexMatch calls,
// each compiling its pattern. The shortcut below does the same walk with
// less work, and leaves the nodes it does not take to the chart's own
// definition, renamed, which the wrapper calls and which calls the wrapper
// back at each level:
//
//   - a string: when the chart's pattern matches it ("{{", at least one
//     character, then "}}", told without a regular expression), the
//     wrapper calls tpl on it as the chart does, unwraps an
//     "encapsulated-result" by the chart's test, and interprets the result
//     again; else the string is returned as it is. Every tpl of the walk
//     is the wrapper's.
//   - a map or a list holding none of what the chart's definition acts on
//     besides gotpl strings ("{{" in a key, a "(raw)" key, a string that a
//     parent unwraps or drops): the wrapper returns it as it is when it
//     holds no "{{" at all, else builds it entry by entry as the chart
//     does, but keeps a key and a number, a boolean, a null or a string
//     without "{{" without interpreting it (the chart's walk returns them
//     as they are, through JSON). The wrapper finds what a subtree holds in
//     its JSON; a null or a subtree Helm's toJson cannot write goes to the
//     chart's definition, and so does any map or list holding a marker.
//
// The wrapper is installed only over a definition whose behaviour it was
// checked against: those of sylva-core 1.0 to the 1.4 line, recognized by
// the digest of their parse tree (interpretDigests), which also says how
// the definition tells an encapsulated result. Any other chart renders as
// it is.
//
// A template error inside the walk names the wrapper's calls where the
// chart's message names its own: frames maps each of the wrapper's
// positions to the chart's position of the same call, so that a message
// reads as the chart without the shortcut gives it (withoutShortcut).

const (
	interpretName     = "interpret-inner-gotpl"
	interpretRenamed  = "sylva-planner-chart-interpret-inner-gotpl"
	interpretWrapFile = "_sylva-planner-interpret.tpl"
)

// interpretWrapperText is the shortcut, defined under the chart's name;
// ENCAP(X) is the chart's test of an encapsulated result X. Its calls of
// tpl and of the walk are written as the chart's (`tpl $data $envAll`,
// `tuple $envAll … | include "interpret-inner-gotpl"`), so that an error
// names the same call.
const interpretWrapperText = `{{- define "` + interpretName + `" -}}
{{- $envAll := index . 0 -}}
{{- $data := index . 1 -}}
{{- $kind := kindOf $data -}}
{{- if eq $kind "string" -}}
  {{- $sp_rest := "" -}}
  {{- if contains "{{" $data -}}
    {{- $sp_rest = index (splitn "{{" 2 $data) "_1" -}}
  {{- end -}}
  {{- if and (gt (len $sp_rest) 1) (contains "}}" (substr 1 -1 $sp_rest)) -}}
    {{- $result := tpl $data $envAll -}}
    {{- if ENCAP($result) -}}
      {{- $result = index (fromJson $result) "encapsulated-result" -}}
    {{- end -}}
    {{- tuple $envAll $result | include "` + interpretName + `" -}}
  {{- else -}}
    {{- dict "result" $data | toJson -}}
  {{- end -}}
{{- else if or (eq $kind "map") (eq $kind "slice") -}}
  {{- $sp_json := toJson $data -}}
  {{- if or (eq $sp_json "") (eq $sp_json "null") (contains "(raw)" $sp_json) (contains "encapsulated-result" $sp_json) (contains "skip-as-set-only-if-result-was-false" $sp_json) (and (eq $kind "map") (keys $data | join "\n" | contains "{{")) -}}
    {{- include "` + interpretRenamed + `" . -}}
  {{- else if not (contains "{{" $sp_json) -}}
    {{- printf "{\"result\":%s}" $sp_json -}}
  {{- else if eq $kind "slice" -}}
    {{- $result := list -}}
    {{- range $data -}}
      {{- $sp_kind := kindOf . -}}
      {{- if or (eq $sp_kind "map") (eq $sp_kind "slice") (and (eq $sp_kind "string") (contains "{{" .)) -}}
        {{- $tpl_item := index (tuple $envAll . | include "` + interpretName + `" | fromJson) "result" -}}
        {{- if ne (kindOf $tpl_item) "string" -}}
          {{- $result = append $result $tpl_item -}}
        {{- else if ENCAP($tpl_item) -}}
          {{- $result = append $result (index (fromJson $tpl_item) "encapsulated-result") -}}
        {{- else if ne $tpl_item "skip-as-set-only-if-result-was-false" -}}
          {{- $result = append $result $tpl_item -}}
        {{- end -}}
      {{- else -}}
        {{- $result = append $result . -}}
      {{- end -}}
    {{- end -}}
    {{- dict "result" $result | toJson -}}
  {{- else -}}
    {{- $result := dict -}}
    {{- range $key, $value := $data -}}
      {{- $sp_kind := kindOf $value -}}
      {{- if or (eq $sp_kind "map") (eq $sp_kind "slice") (and (eq $sp_kind "string") (contains "{{" $value)) -}}
        {{- $tpl_value := index (tuple $envAll $value | include "` + interpretName + `" | fromJson) "result" -}}
        {{- if ne (kindOf $tpl_value) "string" -}}
          {{- $_ := set $result $key $tpl_value -}}
        {{- else if ENCAP($tpl_value) -}}
          {{- $_ := set $result $key (index (fromJson $tpl_value) "encapsulated-result") -}}
        {{- else if ne $tpl_value "skip-as-set-only-if-result-was-false" -}}
          {{- $_ := set $result $key $tpl_value -}}
        {{- end -}}
      {{- else -}}
        {{- $_ := set $result $key $value -}}
      {{- end -}}
    {{- end -}}
    {{- dict "result" $result | toJson -}}
  {{- end -}}
{{- else -}}
  {{- include "` + interpretRenamed + `" . -}}
{{- end -}}
{{- end -}}
`

// An encapsulated result, as each definition tells it: 1.0 by the prefix
// alone, later ones after spaces and newlines (their pattern
// `^( |\n)*{"encapsulated-result":`, which trimming both ends before the
// prefix test matches exactly: the prefix ends in a character trimAll
// keeps).
const (
	encapPrefix  = `hasPrefix "{\"encapsulated-result\":" $1`
	encapTrimmed = `hasPrefix "{\"encapsulated-result\":" (trimAll " \n" $1)`
)

var encapCall = regexp.MustCompile(`ENCAP\((\$[a-z_]+)\)`)

// interpretWrapper is the wrapper for a definition whose encapsulated
// result is told by encap.
func interpretWrapper(encap string) string {
	return encapCall.ReplaceAllString(interpretWrapperText, encap)
}

// interpretDigests are the SHA-256 digests of the parse trees of the
// definitions of "interpret-inner-gotpl" the shortcut was checked against
// (the tests of chart_interpret_test.go fail on a bundle ref whose
// definition is not here, and the conformance test renders every
// test-values case of each with it), with their test of an encapsulated
// result: sylva-core 1.0.0, 1.2.1, 1.3.x, and the 1.4 line.
var interpretDigests = map[string]string{
	"050b7dfea4220a9b170376cf33307005f242f145a1ca45bc57ef27bbb007dfa4": encapPrefix,  // 1.0
	"4403e0f797902e9553731b2ee52cc27d7147c2ec91abb68b5a7fe74b21f35d32": encapTrimmed, // 1.2, 1.3
	"1bae38e1c302852db637f01b4544ab98b4c9b62801e0dd1e308ac0dd4860cd0c": encapTrimmed, // 1.4 line
}

var defineInterpret = regexp.MustCompile(`define\s+"` + interpretName + `"`)

// shortcutFrames maps a position of the wrapper ("line:col") to the
// position of the chart's same call ("_interpret-values.tpl:line:col").
type shortcutFrames map[string]string

// withInterpretShortcut is ch with the shortcut installed when one of its
// templates holds a known definition of "interpret-inner-gotpl" (and no
// other template defines it), with the wrapper's frames, else ch itself
// and no frames. ch is not modified: the shortcut goes into a copy of the
// tree (copyChart: its own templates lists, the files shared).
func withInterpretShortcut(ch *chart.Chart) (*chart.Chart, shortcutFrames) {
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
	if found != 1 {
		return ch, nil
	}
	def, ok := interpretDefinition(string(owner.Templates[at].Data))
	if !ok {
		return ch, nil
	}
	encap, ok := interpretDigests[digestOf(def)]
	if !ok {
		return ch, nil
	}
	wrapper := interpretWrapper(encap)
	frames, ok := framesOf(wrapper, def, path.Base(owner.Templates[at].Name))
	if !ok {
		return ch, nil
	}
	t := *owner.Templates[at]
	t.Data = defineInterpret.ReplaceAll(t.Data, []byte(`define "`+interpretRenamed+`"`))
	owner.Templates[at] = &t
	owner.Templates = append(owner.Templates, &chart.File{Name: path.Join(path.Dir(t.Name), interpretWrapFile), Data: []byte(wrapper)})
	return cp, frames
}

// interpretDefinition is the parse tree of the text's definition of
// "interpret-inner-gotpl".
func interpretDefinition(text string) (*parse.Tree, bool) {
	trees, err := parseTrees("interpret", text)
	if err != nil {
		return nil, false
	}
	def, ok := trees[interpretName]
	return def, ok && def.Root != nil
}

// parseTrees parses text as one template file named name, as Helm's
// engine would but without its functions: the trees of the file and of
// each template it defines.
func parseTrees(name, text string) (map[string]*parse.Tree, error) {
	t := parse.New(name)
	t.Mode = parse.SkipFuncCheck
	trees := map[string]*parse.Tree{}
	_, err := t.Parse(text, "", "", trees)
	return trees, err
}

func digestOf(def *parse.Tree) string {
	sum := sha256.Sum256([]byte(def.Root.String()))
	return hex.EncodeToString(sum[:])
}

// framesOf maps each call of the wrapper that an error can name (tpl, and
// the walk's include of a string's result, of a list's item, of a map's
// value) to the chart's position of the same call in def, read from the
// chart's file base. It fails when the chart's definition lacks one of
// them.
func framesOf(wrapper string, def *parse.Tree, base string) (shortcutFrames, bool) {
	trees, err := parseTrees(interpretWrapFile, wrapper)
	if err != nil {
		return nil, false
	}
	ours, theirs := interpretCalls(trees[interpretName]), interpretCalls(def)
	frames := shortcutFrames{}
	for _, kind := range []string{"tpl", "$result", ".", "$value"} {
		if len(theirs[kind]) == 0 || len(ours[kind]) == 0 {
			return nil, false
		}
		for _, pos := range ours[kind] {
			frames[pos] = base + ":" + theirs[kind][0]
		}
	}
	return frames, true
}

// interpretCalls lists the positions ("line:col") of the calls of tpl (key
// "tpl") and of includes of the walk, keyed by what they interpret (the
// last argument of the tuple piped into them: "$result", ".", "$key",
// "$value"), in the definition's order.
func interpretCalls(def *parse.Tree) map[string][]string {
	out := map[string][]string{}
	var walk func(n parse.Node)
	walkPipe := func(p *parse.PipeNode) {
		if p == nil {
			return
		}
		for i, cmd := range p.Cmds {
			if len(cmd.Args) == 0 {
				continue
			}
			id, ok := cmd.Args[0].(*parse.IdentifierNode)
			switch {
			case !ok:
			case id.Ident == "tpl":
				out["tpl"] = append(out["tpl"], position(def, cmd))
			case id.Ident == "include" && len(cmd.Args) == 2 && i > 0 && cmd.Args[1].String() == `"`+interpretName+`"`:
				if prev := p.Cmds[i-1].Args; len(prev) == 3 && prev[0].String() == "tuple" {
					key := prev[2].String()
					out[key] = append(out[key], position(def, cmd))
				}
			}
			for _, a := range cmd.Args {
				walk(a)
			}
		}
	}
	walk = func(n parse.Node) {
		switch n := n.(type) {
		case *parse.ListNode:
			if n != nil {
				for _, c := range n.Nodes {
					walk(c)
				}
			}
		case *parse.ActionNode:
			walkPipe(n.Pipe)
		case *parse.PipeNode:
			walkPipe(n)
		case *parse.IfNode:
			walkPipe(n.Pipe)
			walk(n.List)
			walk(n.ElseList)
		case *parse.RangeNode:
			walkPipe(n.Pipe)
			walk(n.List)
			walk(n.ElseList)
		case *parse.WithNode:
			walkPipe(n.Pipe)
			walk(n.List)
			walk(n.ElseList)
		}
	}
	walk(def.Root)
	return out
}

// position is "line:col" of n as the engine's messages give it.
func position(def *parse.Tree, n parse.Node) string {
	loc, _ := def.ErrorContext(n)
	return loc[strings.Index(loc, ":")+1:]
}

var (
	wrapperCall  = regexp.MustCompile(`template: [^\s:]*/` + regexp.QuoteMeta(interpretWrapFile) + `:[0-9]+:[0-9]+: executing "` + interpretName + `" at <include "` + interpretRenamed + `" \.>: error calling include: `)
	wrapperFrame = regexp.MustCompile(`(template: [^\s:]*/)` + regexp.QuoteMeta(interpretWrapFile) + `:([0-9]+:[0-9]+)(: executing "` + interpretName + `" at <)`)
	renamedExec  = regexp.MustCompile(`"` + interpretRenamed + `"`)
)

// withoutShortcut is an engine message as the chart without the shortcut
// gives it: the wrapper's calls of the chart's definition left out, its
// other calls at the chart's positions of the same calls, the chart's
// definition under its own name.
func withoutShortcut(msg string, frames shortcutFrames) string {
	msg = wrapperCall.ReplaceAllLiteralString(msg, "")
	msg = wrapperFrame.ReplaceAllStringFunc(msg, func(m string) string {
		sub := wrapperFrame.FindStringSubmatch(m)
		if at, ok := frames[sub[2]]; ok {
			return sub[1] + at + sub[3]
		}
		return m
	})
	return renamedExec.ReplaceAllLiteralString(msg, `"`+interpretName+`"`)
}
