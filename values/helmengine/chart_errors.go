package helmengine

import (
	"fmt"
	"regexp"
	"strings"

	"helm.sh/helm/v3/pkg/chartutil"
)

// SchemaError is a values tree the chart's values.schema.json rejects.
type SchemaError struct {
	// Chart names the chart whose schema failed.
	Chart string
	// Problems are Helm's messages, one per failing path, for example
	// "at '/cluster_virtual_ip': 'oneOf' failed, subschemas 0, 1 matched".
	Problems []string
}

func (e *SchemaError) Error() string {
	return fmt.Sprintf("values do not meet the schema of chart %s: %s (skip the check with --skip-schema-validation)", e.Chart, strings.Join(e.Problems, "; "))
}

// ChartError is a chart template that failed to render.
type ChartError struct {
	// Template is the chart file that failed, for example
	// "sylva-units/templates/units.yaml", with its line when Helm gives it.
	Template string
	// Path is the values path of the gotpl string that failed, when it can
	// be told from the message ("values.units.foo.enabled"); empty
	// otherwise.
	Path string
	// Message is Helm's message.
	Message string
}

// Error is one line: the values path when known, then Helm's message
// reduced to its innermost cause when it is a chain of includes (the
// sylva-units chart interprets every value through nested include and
// tpl calls, whose trace runs to a thousand characters and says nothing
// the cause does not), with the template named.
func (e *ChartError) Error() string {
	msg := e.Message
	if strings.Count(msg, "error calling ") > 1 {
		if i := strings.LastIndex(msg, ">: "); i >= 0 {
			msg = msg[i+len(">: "):]
			if e.Template != "" {
				msg += " (in " + e.Template + ")"
			}
		}
	}
	msg = strings.Join(strings.Fields(msg), " ")
	if e.Path != "" {
		return e.Path + ": " + msg
	}
	return msg
}

var schemaLine = regexp.MustCompile(`(?m)^- (.*)$`)

// schemaError turns Helm's schema message into a *SchemaError; any other
// error is returned wrapped.
func schemaError(chartName string, err error) error {
	msg := err.Error()
	if !strings.Contains(msg, "schema") {
		return fmt.Errorf("chart %s values: %w", chartName, err)
	}
	se := &SchemaError{Chart: chartName}
	for _, m := range schemaLine.FindAllStringSubmatch(msg, -1) {
		se.Problems = append(se.Problems, strings.TrimSpace(m[1]))
	}
	if len(se.Problems) == 0 {
		se.Problems = []string{strings.TrimSpace(msg)}
	}
	return se
}

var (
	chartLoc = regexp.MustCompile(`\(([^()\s]+/templates/[^()\s:]+(?::[0-9]+)*)\)`)
	execAt   = regexp.MustCompile(`executing "[^"]*" at <([^>]+)>`)
	failMsg  = regexp.MustCompile(`^execution error at \([^()]*\): (.+)$`)
)

// chartError turns an engine error into a *ChartError: the template and
// line Helm names, Helm's message, and the values path of the gotpl string
// the failing expression comes from, when exactly one string of the values
// contains it.
func chartError(err error, top chartutil.Values, frames shortcutFrames) error {
	msg := collapseRepeats(withoutShortcut(err.Error(), frames))
	ce := &ChartError{Message: msg}
	if m := chartLoc.FindStringSubmatch(msg); m != nil {
		ce.Template = m[1]
	}
	vals, _ := top["Values"].(chartutil.Values)
	for _, m := range execAt.FindAllStringSubmatch(msg, -1) {
		if paths := stringsContaining(map[string]any(vals), "values", m[1], nil); len(paths) == 1 {
			ce.Path = paths[0]
		}
	}
	// Helm shortens a `fail` to its message: look for the string that
	// holds it literally.
	if m := failMsg.FindStringSubmatch(msg); ce.Path == "" && m != nil && len(m[1]) >= 3 {
		if paths := stringsContaining(map[string]any(vals), "values", m[1], nil); len(paths) == 1 {
			ce.Path = paths[0]
		}
	}
	return ce
}

// stringsContaining lists the paths of the gotpl strings of v that contain
// sub, in sorted order, stopping at two.
func stringsContaining(v any, p, sub string, out []string) []string {
	if len(out) > 1 {
		return out
	}
	switch t := v.(type) {
	case map[string]any:
		for _, k := range sortedKeys(t) {
			out = stringsContaining(t[k], ChildPath(p, k), sub, out)
		}
	case chartutil.Values:
		return stringsContaining(map[string]any(t), p, sub, out)
	case []any:
		for i, x := range t {
			out = stringsContaining(x, fmt.Sprintf("%s[%d]", p, i), sub, out)
		}
	case string:
		if IsTemplate(t) && strings.Contains(t, sub) {
			out = append(out, p)
		}
	}
	return out
}
