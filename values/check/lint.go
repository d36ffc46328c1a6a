package check

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"gitlab.com/sylva-projects/sylva-planner/planner"
	"gitlab.com/sylva-projects/sylva-planner/values/helmengine"
	"gitlab.com/sylva-projects/sylva-planner/yamldoc"
)

// Finding codes of `values check`. Tests and machines match on them.
const (
	// CodeValuesMismatch: a pass renders a helper value the plan does not
	// expect.
	CodeValuesMismatch = "values-mismatch"
	// CodeFreshInstallTransition: a fresh install (no status ConfigMap)
	// takes a transition path.
	CodeFreshInstallTransition = "fresh-install-transition"
	// CodeTemplateError: a gotpl string fails to parse or execute.
	CodeTemplateError = "template-error"
	// CodeHyphenatedField: `.Values.a-b` is a parse error in Go templates.
	CodeHyphenatedField = "hyphenated-field-access"
	// CodeSemverPrerelease: a semverCompare constraint without a
	// pre-release part never matches a pre-release version ("1.4-pre").
	CodeSemverPrerelease = "semver-prerelease-blind"
	// CodeSemverBranchName: a value that may be a branch name ("main")
	// reaches semverCompare, which fails the whole render.
	CodeSemverBranchName = "semver-branch-name"
	// CodeDigDefault: a `dig` default for sylva_release makes a fresh
	// install look like an upgrade from that release.
	CodeDigDefault = "dig-default-fresh-install"
	// CodeConditionOnGotpl: ternary/if on another gotpl value, which is a
	// string (its raw template text, or its rendered text depending on
	// evaluation order), never a bool.
	CodeConditionOnGotpl = "condition-on-gotpl-value"
	// CodeGotplReference: a gotpl value reads another gotpl value, which it
	// sees as raw template text.
	CodeGotplReference = "gotpl-value-reference"
	// CodeUnquotedVersionKey: a map key written as an unquoted number
	// (1.30) is read as a float (1.3).
	CodeUnquotedVersionKey = "unquoted-version-key"
)

var (
	actionRE      = regexp.MustCompile(`(?s)\{\{(.*?)\}\}`)
	stringLitRE   = regexp.MustCompile("\"(?:[^\"\\\\]|\\\\.)*\"|`[^`]*`")
	hyphenFieldRE = regexp.MustCompile(`(?:\.[A-Za-z_][A-Za-z0-9_]*)*\.[A-Za-z_][A-Za-z0-9_]*-[A-Za-z0-9_][A-Za-z0-9_-]*`)
	semverRE      = regexp.MustCompile(`semverCompare\s+"([^"]*)"`)
	digDefaultRE  = regexp.MustCompile(`dig\s+(?:"[^"]*"\s+)*"sylva_release"\s+"([^"]+)"`)
	valuesRefRE   = regexp.MustCompile(`\.Values((?:\.[A-Za-z_][A-Za-z0-9_-]*)+)`)
	indexRefRE    = regexp.MustCompile(`index\s+\.Values((?:\s+"[^"]*")+)`)
	quotedRE      = regexp.MustCompile(`"([^"]*)"`)
	conditionRE   = regexp.MustCompile(`(?:^|[\s(|-])(?:ternary|if|not|and|or)\s`)
	versionKeyRE  = regexp.MustCompile(`^[0-9]+\.[0-9]+$`)
)

// lintTemplates analyses the text of every gotpl string of vals.
func lintTemplates(vals map[string]any) []planner.Finding {
	var out []planner.Finding
	for _, s := range helmengine.GotplStrings(vals) {
		out = append(out, lintTemplate(vals, s)...)
	}
	return out
}

func lintTemplate(vals map[string]any, s helmengine.GotplString) []planner.Finding {
	var out []planner.Finding
	add := func(code string, sev planner.Severity, msg, fix string) {
		out = append(out, planner.Finding{Code: code, Severity: sev, Subject: s.Path, Message: msg, Remediation: fix})
	}
	hyphenSeen := map[string]bool{}
	for _, m := range actionRE.FindAllStringSubmatch(s.Text, -1) {
		action := m[1]
		bare := stringLitRE.ReplaceAllString(action, `""`)
		for _, f := range hyphenFieldRE.FindAllString(bare, -1) {
			if hyphenSeen[f] {
				continue
			}
			hyphenSeen[f] = true
			key := f[strings.LastIndex(f, ".")+1:]
			add(CodeHyphenatedField, planner.SeverityBlocker,
				fmt.Sprintf("%s does not parse as a Go template (bad character U+002D '-'); the whole chart fails to render", f),
				fmt.Sprintf(`read the key with index: index %s %q`, strings.TrimSuffix(f, "."+key), key))
		}
		for _, c := range semverRE.FindAllStringSubmatch(action, -1) {
			if !strings.Contains(c[1], "-") {
				add(CodeSemverPrerelease, planner.SeverityWarning,
					fmt.Sprintf("semverCompare %q ignores pre-release versions: \"1.4-pre\" does not match it", c[1]),
					`strip the pre-release part before comparing (regexFind "[0-9]+[.][0-9]+"), or add "-0" to each bound ("<1.5-0")`)
			}
		}
		for _, ref := range referencedValues(action) {
			if interpretedBefore(ref, s.Path) {
				continue
			}
			target, ok := yamldoc.Dig(vals, ref...)
			str, isStr := target.(string)
			if !ok || !isStr || !helmengine.IsTemplate(str) {
				continue
			}
			name := "values." + strings.Join(ref, ".")
			if conditionRE.MatchString(" " + bare) {
				add(CodeConditionOnGotpl, planner.SeverityBlocker,
					fmt.Sprintf("a condition reads %s, another gotpl value: it is a string (its raw template text, or its rendered text depending on evaluation order), never a bool; ternary fails with \"expected bool; got string\"", name),
					"compute the condition from its source (the status ConfigMap) in this value, or compare strings: eq (… | toString) \"true\"")
			} else {
				add(CodeGotplReference, planner.SeverityWarning,
					fmt.Sprintf("reads %s, another gotpl value: without the chart's interpret helper it sees that value's raw template text", name),
					"compute the value from its source in this value instead of reading another gotpl value")
			}
		}
	}
	if strings.Contains(s.Text, "semverCompare") && !strings.Contains(s.Text, "regexMatch") && !strings.Contains(s.Text, "regexFind") {
		add(CodeSemverBranchName, planner.SeverityWarning,
			"a value compared with semverCompare may be a branch name or a development version (\"main\"): semverCompare then fails the whole render",
			`check the value with regexMatch "^[0-9]+[.][0-9]+" before semverCompare, or compare minors as strings`)
	}
	if strings.Contains(s.Text, "lookup") {
		for _, d := range digDefaultRE.FindAllStringSubmatch(s.Text, -1) {
			add(CodeDigDefault, planner.SeverityWarning,
				fmt.Sprintf("the dig default %q for sylva_release makes a fresh install (no status ConfigMap) look like an upgrade from %s", d[1], d[1]),
				`test the lookup result first: a missing ConfigMap is a fresh install (no transition); a ConfigMap without sylva_release is a release that did not record it`)
		}
	}
	return out
}

// interpretedBefore reports whether the sylva-units chart interprets the
// value at ref before the string at path: it interprets _internal.state
// first, then the rest of _internal, then everything else.
func interpretedBefore(ref []string, path string) bool {
	if len(ref) == 0 || ref[0] != "_internal" {
		return false
	}
	if len(ref) > 1 && ref[1] == "state" && !helmengine.UnderPath(path, "values._internal.state") {
		return true
	}
	return !helmengine.UnderPath(path, "values._internal")
}

// referencedValues lists the value paths an action reads with .Values.a.b
// or index .Values "a" "b".
func referencedValues(action string) [][]string {
	var out [][]string
	bare := stringLitRE.ReplaceAllString(action, `""`)
	for _, m := range valuesRefRE.FindAllStringSubmatch(bare, -1) {
		out = append(out, strings.Split(strings.TrimPrefix(m[1], "."), "."))
	}
	for _, m := range indexRefRE.FindAllStringSubmatch(action, -1) {
		var p []string
		for _, q := range quotedRE.FindAllStringSubmatch(m[1], -1) {
			p = append(p, q[1])
		}
		out = append(out, p)
	}
	return out
}

// lintKeys finds map keys written as unquoted numbers that look like
// versions.
func lintKeys(f helmengine.File) ([]planner.Finding, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(f.Data, &root); err != nil {
		return nil, fmt.Errorf("parse %s: %w", f.Name, err)
	}
	var out []planner.Finding
	var walk func(n *yaml.Node, path string)
	walk = func(n *yaml.Node, path string) {
		switch n.Kind {
		case yaml.DocumentNode:
			for _, c := range n.Content {
				walk(c, path)
			}
		case yaml.SequenceNode:
			for i, c := range n.Content {
				walk(c, path+"["+strconv.Itoa(i)+"]")
			}
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				k, v := n.Content[i], n.Content[i+1]
				if k.Kind == yaml.ScalarNode && k.Style == 0 && (k.ShortTag() == "!!float" || k.ShortTag() == "!!int") && versionKeyRE.MatchString(k.Value) {
					fl, _ := strconv.ParseFloat(k.Value, 64)
					read := strconv.FormatFloat(fl, 'f', -1, 64)
					sev := planner.SeverityWarning
					msg := fmt.Sprintf("key %s is an unquoted number; it is read as the float %s", k.Value, read)
					if read != k.Value {
						sev = planner.SeverityBlocker
						msg = fmt.Sprintf("key %s is an unquoted number and is read as %s: lookups of %q miss it", k.Value, read, k.Value)
					}
					out = append(out, planner.Finding{
						Code: CodeUnquotedVersionKey, Severity: sev,
						Subject:     fmt.Sprintf("%s:%d %s", f.Name, k.Line, helmengine.ChildPath(path, k.Value)),
						Message:     msg,
						Remediation: fmt.Sprintf("quote the key: %q:", k.Value),
					})
				}
				walk(v, helmengine.ChildPath(path, k.Value))
			}
		case yaml.ScalarNode, yaml.AliasNode:
		}
	}
	walk(&root, "values")
	return out, nil
}
