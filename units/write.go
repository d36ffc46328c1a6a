package units

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"gitlab.com/sylva-projects/sylva-planner/cell"
	"gitlab.com/sylva-projects/sylva-planner/envelope"
)

// Document is the JSON and YAML form of the report (the same report gives the same bytes), with its apiVersion,
// kind and metadata (envelope.WriteJSON and WriteYAML write it).
func (r *Report) Document() any { return r }

// WriteTable writes the report as an aligned text table, a summary line and
// the command to run next.
func (r *Report) WriteTable(w io.Writer) error {
	var b strings.Builder
	if r.Release == "" {
		fmt.Fprintf(&b, "Prune audit, release unknown (catalog %s)\n", r.Metadata.CatalogVersion)
	} else {
		fmt.Fprintf(&b, "Prune audit for Sylva %s (supported upgrade sources: %s; catalog %s)\n",
			r.Release, cell.OrDash(strings.Join(r.SupportedSources, ", ")), r.Metadata.CatalogVersion)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "Note: %s\n", cell.OneLine(n))
	}
	b.WriteString("\n")
	if len(r.Units) == 0 {
		b.WriteString("No transitional unit and no untracked candidate.\n")
	} else {
		tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "STATE\tUNIT\tMETADATA\tPRUNABLE IN\tDEPENDENTS\tREASON")
		for _, u := range r.Units {
			meta := u.TransitionalFrom
			if u.State == StateUntracked {
				meta = u.SuggestedMetadata
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", u.State, cell.OneLine(u.Name), cell.OrDash(cell.OneLine(meta)), cell.OrDash(u.PrunableIn),
				cell.OrDash(cell.OneLine(strings.Join(u.markedDependents(), ","))), cell.OneLine(u.Reason))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		fmt.Fprintf(&b, "\n%s\n", r.summary())
	}
	if len(r.Unresolved) > 0 && !r.ShowUnresolved {
		fmt.Fprintf(&b, "\n%s\n\n", r.unresolvedLine())
	}
	if len(r.Unresolved) > 0 && r.ShowUnresolved {
		groups := r.unresolvedByUnit()
		fmt.Fprintf(&b, "\nUnresolved gotpl entries: %d in %d units, %s reading (-o json and -o yaml show each template):\n",
			len(r.Unresolved), len(groups), r.Resolution)
		tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "UNIT\tFIELDS")
		for _, g := range groups {
			fmt.Fprintf(tw, "%s\t%s\n", cell.OrDash(cell.OneLine(g.unit)), strings.Join(g.fields, ", "))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "Next: %s\n", r.next())
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteMarkdown writes the report as Markdown fit for a merge-request
// comment: a summary, a table, the metadata to add to untracked units and
// the command to run next. Every string from the values files or the
// catalog (unit names, metadata, templates, versions) is escaped
// (cell.Markdown and its kin): it shows as written and starts no heading,
// link, image or HTML.
func (r *Report) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	release := cell.Markdown(r.Release)
	if r.Release == "" {
		fmt.Fprintf(&b, "### Prune audit: release unknown\n\n")
		fmt.Fprintf(&b, "Catalog %s, sylva-planner %s.\n", cell.Markdown(r.Metadata.CatalogVersion), cell.Markdown(r.Metadata.ToolVersion))
	} else {
		fmt.Fprintf(&b, "### Prune audit: Sylva %s\n\n", release)
		fmt.Fprintf(&b, "Supported upgrade sources of %s: %s. Catalog %s, sylva-planner %s.\n",
			release, cell.OrDash(cell.Markdown(strings.Join(r.SupportedSources, ", "))), cell.Markdown(r.Metadata.CatalogVersion), cell.Markdown(r.Metadata.ToolVersion))
	}
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "\n> **Note:** %s\n", cell.MarkdownSpans(n))
	}
	b.WriteString("\n")
	if len(r.Units) == 0 {
		b.WriteString("No transitional unit and no untracked candidate.\n\n")
	} else {
		fmt.Fprintf(&b, "%s\n\n", r.summary())
		b.WriteString("| State | Unit | Metadata | Prunable in | Dependents | Reason |\n")
		b.WriteString("|---|---|---|---|---|---|\n")
		for _, u := range r.Units {
			state := string(u.State)
			if u.State == StatePrunable || u.State == StateBlocked || u.State == StateMalformed {
				state = "**" + state + "**"
			}
			deps := u.markedDependents()
			for i, d := range deps {
				deps[i] = cell.MarkdownCode(d)
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |\n", state, cell.MarkdownCode(u.Name), cell.MarkdownCode(u.TransitionalFrom), cell.Markdown(u.PrunableIn),
				strings.Join(deps, ", "), cell.MarkdownCell(u.Reason))
		}
		b.WriteString("\n")
		var add []AuditedUnit
		for _, u := range r.Units {
			if u.State == StateUntracked {
				add = append(add, u)
			}
		}
		if len(add) > 0 {
			var yaml strings.Builder
			yaml.WriteString("units:\n")
			for _, u := range add {
				fmt.Fprintf(&yaml, "  %s:\n    %s\n", cell.OneLine(cell.Visible(u.Name)), cell.OneLine(cell.Visible(u.SuggestedMetadata)))
			}
			// A fence longer than any backticks of the names, so that none
			// of them ends the block.
			fence := cell.Fence(yaml.String())
			fmt.Fprintf(&b, "<details><summary>Metadata to add to untracked units</summary>\n\n%syaml\n%s%s\n\n</details>\n\n", fence, yaml.String(), fence)
		}
	}
	if len(r.Unresolved) > 0 && !r.ShowUnresolved {
		fmt.Fprintf(&b, "%s\n\n", cell.MarkdownSpans(r.unresolvedLine()))
	}
	if len(r.Unresolved) > 0 && r.ShowUnresolved {
		fmt.Fprintf(&b, "<details><summary>Unresolved gotpl entries (%d, %s reading)</summary>\n\n", len(r.Unresolved), r.Resolution)
		b.WriteString("| Unit | Field | Kind | Template |\n|---|---|---|---|\n")
		for _, u := range r.Unresolved {
			fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", cell.OrDash(cell.MarkdownCode(u.Unit)), cell.OrDash(cell.MarkdownCode(u.Field)), u.Kind, cell.OrDash(cell.MarkdownCode(u.Template)))
		}
		b.WriteString("\n</details>\n\n")
	}
	fmt.Fprintf(&b, "**Next:** %s\n", cell.MarkdownSpans(r.next()))
	_, err := io.WriteString(w, b.String())
	return err
}

func (r *Report) summary() string {
	var parts []string
	for _, s := range States {
		if n := r.Count(s); n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, s))
		}
	}
	return strings.Join(parts, ", ") + "."
}

// next says what to do next and gives the exact command to check again.
func (r *Report) next() string {
	names := func(s State) string {
		var out []string
		for _, u := range r.Units {
			if u.State == s {
				out = append(out, u.Name)
			}
		}
		return strings.Join(out, ", ")
	}
	again := "`" + r.command(r.Release) + "`"
	switch {
	case r.Release == "" && r.inferred != "":
		return fmt.Sprintf("name the release to audit for (%s, as the note infers it): `%s`", r.inferred, r.command(r.inferred))
	case r.Release == "":
		return fmt.Sprintf("name the release to audit for: `%s`", r.command("X.Y"))
	case r.Count(StatePrunable) > 0:
		return fmt.Sprintf("delete %s from the values, then run %s", names(StatePrunable), again)
	case r.Count(StateBlocked) > 0:
		return fmt.Sprintf("remove the depends_on entries naming %s from the dependents listed, then run %s", names(StateBlocked), again)
	case r.Count(StateMalformed) > 0:
		return fmt.Sprintf("fix the transitional-unit value of %s (from-X.Y, for example from-1.4), then run %s", names(StateMalformed), again)
	case r.Count(StateUntracked) > 0:
		return fmt.Sprintf("add the suggested info.transitional-unit metadata to %s, then run %s", names(StateUntracked), again)
	}
	earliest := ""
	for _, u := range r.Units {
		if u.PrunableIn != "" && (earliest == "" || lessRelease(u.PrunableIn, earliest)) {
			earliest = u.PrunableIn
		}
	}
	if earliest == "" {
		return fmt.Sprintf("nothing to prune in %s", r.Release)
	}
	return fmt.Sprintf("nothing to prune in %s; the next units become prunable in %s: `%s`", r.Release, earliest, r.command(earliest))
}

// command is the prune-audit command line for the report's files at rel.
func (r *Report) command(rel string) string {
	return r.Selection.Command("prune-audit", append(envelope.RepeatFlag("-f", r.files), "--release", rel)...)
}

// unresolvedLine sums the unresolved entries up in one line, with how to
// list them.
func (r *Report) unresolvedLine() string {
	return fmt.Sprintf("Unresolved gotpl entries: %d in %d units, %s reading; list them with --show-unresolved, or -o json or -o yaml.",
		len(r.Unresolved), len(r.unresolvedByUnit()), r.Resolution)
}

type unresolvedGroup struct {
	unit   string
	fields []string
}

// unresolvedByUnit groups the unresolved entries by unit, in order; a
// field that is not a condition is followed by its kind.
func (r *Report) unresolvedByUnit() []unresolvedGroup {
	var out []unresolvedGroup
	for _, u := range r.Unresolved {
		if len(out) == 0 || out[len(out)-1].unit != u.Unit {
			out = append(out, unresolvedGroup{unit: u.Unit})
		}
		f := cutLine(u.Field, 80)
		if u.Kind != UnresolvedCondition {
			f += " (" + string(u.Kind) + ")"
		}
		out[len(out)-1].fields = append(out[len(out)-1].fields, f)
	}
	return out
}

// markedDependents returns Dependents with a "?" after each conditional
// one.
func (u AuditedUnit) markedDependents() []string {
	out := make([]string, len(u.Dependents))
	for i, d := range u.Dependents {
		out[i] = d
		if slices.Contains(u.ConditionalDependents, d) {
			out[i] += "?"
		}
	}
	return out
}

// cutLine folds s onto one line (cell.OneLine) and cuts it to at most n
// runes, marking a cut with "…".
func cutLine(s string, n int) string {
	s = cell.OneLine(s)
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

func lessRelease(a, b string) bool {
	pa, pb := splitRelease(a), splitRelease(b)
	if pa[0] != pb[0] {
		return pa[0] < pb[0]
	}
	return pa[1] < pb[1]
}

func splitRelease(s string) [2]int {
	var out [2]int
	maj, minor, _ := strings.Cut(s, ".")
	out[0], _ = strconv.Atoi(maj)
	out[1], _ = strconv.Atoi(minor)
	return out
}
