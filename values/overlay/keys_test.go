package overlay

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"gitlab.com/sylva-projects/sylva-planner/planner"
	"gitlab.com/sylva-projects/sylva-planner/status"
)

// jsonNames are the JSON names of a struct's fields, in field order.
func jsonNames(v any) []string {
	var out []string
	t := reflect.TypeOf(v)
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		out = append(out, name)
	}
	return out
}

// The plan's JSON names are struct tags, which cannot name a constant:
// this ties them to the keys spelled once, here and in package status.
func TestThePlanSpellsTheValueAndStatusKeysOfTheirHomes(t *testing.T) {
	values := []string{KeySylvaRelease, KeyTransitionFromN2, KeyK8sVersionShort, KeyLonghornVersion, KeyMachineDeploymentsPaused, KeyAdditionalReconciliationRequired}
	if got := jsonNames(planner.Values{}); !slices.Equal(got, values) {
		t.Errorf("planner.Values JSON names = %v, want the values keys %v", got, values)
	}
	keys := []string{status.KeySylvaRelease, status.KeyAdditionalReconciliationRequired, status.KeyTransitionFrom, status.KeyTransitionPass}
	if got := jsonNames(planner.ExpectedStatus{}); !slices.Equal(got, keys) {
		t.Errorf("planner.ExpectedStatus JSON names = %v, want the status keys %v", got, keys)
	}
	p := planner.Values{SylvaRelease: "1.6", K8sVersionShort: "1.32", LonghornVersion: "1.9.2", TransitionFromN2: true}
	got, err := PassValues(p)
	if err != nil {
		t.Fatal(err)
	}
	// A pass whose chart cannot hold the workers sets no
	// machine_deployments_paused; one whose chart can sets it.
	want := map[string]string{
		KeySylvaRelease: "1.6", KeyK8sVersionShort: "1.32", KeyLonghornVersion: "1.9.2", KeyTransitionFromN2: "true",
		KeyAdditionalReconciliationRequired: "false",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("PassValues = %v, want %v", got, want)
	}
	paused := false
	p.MachineDeploymentsPaused = &paused
	if got, err = PassValues(p); err != nil {
		t.Fatal(err)
	}
	want[KeyMachineDeploymentsPaused] = "false"
	if !reflect.DeepEqual(got, want) {
		t.Errorf("PassValues with machine_deployments_paused = %v, want %v", got, want)
	}
}
