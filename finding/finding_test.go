package finding_test

import (
	"encoding/json"
	"slices"
	"testing"

	"gitlab.com/sylva-projects/sylva-planner/finding"
)

func TestCompareSortsBySeverityThenSubjectThenCode(t *testing.T) {
	got := []finding.Finding{
		{Code: "b", Severity: finding.SeverityInfo, Subject: "x"},
		{Code: "z", Severity: "other", Subject: "a"},
		{Code: "b", Severity: finding.SeverityWarning, Subject: "y"},
		{Code: "a", Severity: finding.SeverityWarning, Subject: "y"},
		{Code: "c", Severity: finding.SeverityBlocker, Subject: "z"},
	}
	slices.SortFunc(got, finding.Compare)
	var codes []string
	for _, f := range got {
		codes = append(codes, string(f.Severity)+"/"+f.Code)
	}
	want := []string{"blocker/c", "warning/a", "warning/b", "info/b", "other/z"}
	if !slices.Equal(codes, want) {
		t.Errorf("sorted = %v, want %v", codes, want)
	}
	if !finding.SeverityBlocker.AtLeast(finding.SeverityWarning) || finding.SeverityInfo.AtLeast(finding.SeverityWarning) {
		t.Errorf("AtLeast does not follow Rank")
	}
}

func TestAnUnsetSubjectAndTheGateFieldsAreOmitted(t *testing.T) {
	b, err := json.Marshal(finding.Finding{Code: "flux-objects-not-read", Severity: finding.SeverityInfo, Message: "m"})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"code":"flux-objects-not-read","severity":"info","message":"m"}`; string(b) != want {
		t.Errorf("json = %s, want %s", b, want)
	}
}
