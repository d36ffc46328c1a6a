package check

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"gitlab.com/sylva-projects/sylva-planner/cell"
	"gitlab.com/sylva-projects/sylva-planner/envelope"
	"gitlab.com/sylva-projects/sylva-planner/fileio"
	"gitlab.com/sylva-projects/sylva-planner/planner"
)

// Document is the JSON and YAML form of the report, with its apiVersion,
// kind and metadata (envelope.WriteJSON and WriteYAML write it).
func (r *Report) Document() any { return r }

// WriteTable writes the findings as a table, then a summary line and the
// next command, then what was not checked.
func (r *Report) WriteTable(w io.Writer) error { return r.WriteTableSelected(w, envelope.Selection{}) }

// WriteTableSelected is WriteTable with the next command repeating the
// selecting flags of sel (catalog, chart, namespace, target).
func (r *Report) WriteTableSelected(w io.Writer, sel envelope.Selection) error {
	var b strings.Builder
	fmt.Fprintf(&b, "Values check %s → %s (values: %s; catalog %s)\n\n", r.From, r.To, strings.Join(r.Values, ", "), r.Metadata.CatalogVersion)
	// A scenario of the chart with an error did not render (without
	// --chart, an error is one value's, the others rendered).
	unrendered := func(s Scenario) bool { return r.Chart != "" && len(s.Errors) > 0 }
	failed := 0
	for _, s := range r.Scenarios {
		if unrendered(s) {
			failed++
		}
	}
	switch failed {
	case 0:
		fmt.Fprintf(&b, "%d scenarios rendered:", len(r.Scenarios))
	case len(r.Scenarios):
		fmt.Fprintf(&b, "%d scenarios, none rendered:", len(r.Scenarios))
	default:
		fmt.Fprintf(&b, "%d scenarios, %d rendered:", len(r.Scenarios), len(r.Scenarios)-failed)
	}
	for _, s := range r.Scenarios {
		fmt.Fprintf(&b, "\n  - %s", s.Name)
		if unrendered(s) && failed < len(r.Scenarios) {
			b.WriteString(" (does not render)")
		}
	}
	b.WriteString("\n\n")
	if len(r.Findings) == 0 {
		b.WriteString("No findings: every pass renders the values the plan expects.\n")
		return r.writeNotes(w, &b)
	}
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SEVERITY\tCODE\tSUBJECT\tMESSAGE")
	for _, f := range r.Findings {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", f.Severity, f.Code, f.Subject, cell.OneLine(f.Message))
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	b.WriteString("\nRemediations:\n")
	for _, f := range r.Findings {
		if f.Remediation != "" {
			fmt.Fprintf(&b, "  - %s (%s): %s\n", f.Code, f.Subject, f.Remediation)
		}
	}
	fmt.Fprintf(&b, "\n%d blocker(s), %d warning(s). Next: %s\n", r.Blockers(), r.count("warning"), r.next(sel))
	return r.writeNotes(w, &b)
}

// next is the command the table ends with. Where the chart of --chart
// does not render and nothing else blocks, it is the render of the same
// files, which shows the failing value (a schema or template error of the
// values, which helper values do not mend), without the schema when the
// check went without it (--skip-schema-validation); else values generate,
// whose helper values set what the plan expects.
func (r *Report) next(sel envelope.Selection) string {
	if files := r.files(); sel.Chart != "" && len(files) > 0 && r.onlyBlocking(CodeChartRenderError) {
		args := envelope.RepeatFlag("-f", files)
		if r.skipSchema {
			args = append(args, "--skip-schema-validation")
		}
		return sel.Command("values render", args...)
	}
	return sel.Command("values generate", "--from", envelope.ShellQuote(r.From), "--to", envelope.ShellQuote(r.To))
}

// files are the files checked, to give values render again (the
// generated helper values are no file); none when one came from standard
// input, which a suggested command cannot read again.
func (r *Report) files() []string {
	var files []string
	for _, name := range r.Values {
		switch name {
		case generatedName:
		case fileio.StdinName:
			return nil
		default:
			files = append(files, name)
		}
	}
	return files
}

// onlyBlocking reports whether every blocker has the code given (and
// there is one).
func (r *Report) onlyBlocking(code string) bool {
	n := 0
	for _, f := range r.Findings {
		if f.Severity != planner.SeverityBlocker {
			continue
		}
		if f.Code != code {
			return false
		}
		n++
	}
	return n > 0
}

// writeNotes ends the table with what was not checked, then writes it.
func (r *Report) writeNotes(w io.Writer, b *strings.Builder) error {
	if len(r.Notes) > 0 {
		fmt.Fprintf(b, "\nNot checked:\n  - %s\n", strings.Join(r.Notes, "\n  - "))
	}
	_, err := io.WriteString(w, b.String())
	return err
}
