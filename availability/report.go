package availability

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"gitlab.com/sylva-projects/sylva-planner/cell"
	"gitlab.com/sylva-projects/sylva-planner/envelope"
	"gitlab.com/sylva-projects/sylva-planner/planner"
)

// APIVersion and Kind identify the JSON and YAML documents of a drain
// check.
const (
	APIVersion = envelope.APIVersion
	Kind       = "DrainCheck"
)

// Report is the result of a drain check: what was read, how completely,
// what was found and the verdict.
type Report struct {
	// Header's metadata is set by the caller.
	envelope.Header
	Source  string          `json:"source"`
	Checks  []planner.Check `json:"checks"`
	Items   []Item          `json:"findings"`
	Verdict planner.Verdict `json:"verdict"`
}

// NewReport assembles a report and judges it: blocked with an actionable
// blocker, held when every blocker waits or is pinned, unknown when a
// required check was not fully assessed, ready otherwise. Items are sorted.
func NewReport(source string, checks []planner.Check, items []Item) Report {
	r := Report{
		Header: envelope.Header{APIVersion: APIVersion, Kind: Kind}, Source: source,
		Checks: append([]planner.Check{}, checks...), Items: append([]Item{}, items...),
	}
	SortItems(r.Items)
	r.Verdict = Verdict(r.Checks, Findings(r.Items))
	return r
}

// Verdict judges findings and checks the way a plan does.
func Verdict(checks []planner.Check, findings []planner.Finding) planner.Verdict {
	blocked, held := false, false
	for _, f := range findings {
		if f.Severity != planner.SeverityBlocker {
			continue
		}
		if f.Class == planner.ClassWaiting || f.Class == planner.ClassPinned {
			held = true
		} else {
			blocked = true
		}
	}
	switch {
	case held:
		return planner.VerdictHeld
	case blocked:
		return planner.VerdictBlocked
	}
	for _, c := range checks {
		if c.Required && c.Status != planner.CheckAssessed {
			return planner.VerdictUnknown
		}
	}
	return planner.VerdictReady
}

// Document is the JSON and YAML form of r, with its apiVersion,
// kind and metadata (envelope.WriteJSON and WriteYAML write it).
func (r Report) Document() any { return r.document() }

// document is r with an empty list of findings written as [].
func (r Report) document() Report {
	if r.Items == nil {
		r.Items = []Item{}
	}
	return r
}

// WriteTable writes the checks, then the findings grouped by namespace with
// the kubectl command that shows each object, then the verdict.
func (r Report) WriteTable(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "Drain check · %s\n\n", r.Source)
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "CHECK\tREQUIRED\tSTATUS\tDETAIL")
	for _, c := range r.Checks {
		req := "no"
		if c.Required {
			req = "yes"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", c.Name, req, c.Status, c.Detail)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	ns := "\x00"
	for _, it := range r.Items {
		if it.Namespace != ns {
			ns = it.Namespace
			name := ns
			if name == "" {
				// Every item is a budget or a workload, namespaced
				// objects: a manifest that names no namespace.
				name = "(none in the manifest: the one it is applied to)"
			}
			fmt.Fprintf(&b, "\nnamespace %s\n", name)
		}
		sev := string(it.Severity)
		if it.Class != "" {
			sev += " (" + string(it.Class) + ")"
		}
		fmt.Fprintf(&b, "  %s %s [%s] %s\n", sev, it.Object, it.Code, it.Message)
		if it.Remediation != "" {
			fmt.Fprintf(&b, "    fix: %s\n", it.Remediation)
		}
		if it.Inspect != "" {
			fmt.Fprintf(&b, "    inspect: %s\n", it.Inspect)
		}
	}
	if len(r.Items) == 0 {
		b.WriteString("\nno finding\n")
	}
	blockers, warnings := 0, 0
	for _, it := range r.Items {
		switch it.Severity {
		case planner.SeverityBlocker:
			blockers++
		case planner.SeverityWarning:
			warnings++
		case planner.SeverityInfo:
		}
	}
	fmt.Fprintf(&b, "\nverdict: %s · %s · %s\n", r.Verdict, cell.Count(blockers, "blocker", "blockers"), cell.Count(warnings, "warning", "warnings"))
	_, err := io.WriteString(w, b.String())
	return err
}
