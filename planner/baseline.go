package planner

// markBaseline flags the findings a previous report already had (same code
// and subject): they do not fail the gate again.
func (p *Plan) markBaseline(baseline []Finding) {
	if baseline == nil {
		return
	}
	seen := map[string]bool{}
	for _, f := range baseline {
		seen[f.Code+"\x00"+f.Subject] = true
	}
	for i := range p.Findings {
		p.Findings[i].InBaseline = seen[p.Findings[i].Code+"\x00"+p.Findings[i].Subject]
	}
}
