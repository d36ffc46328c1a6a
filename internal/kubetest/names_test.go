package kubetest

import (
	"regexp"
	"strings"
	"testing"
)

func TestNamePrefix(t *testing.T) {
	dns := regexp.MustCompile(`^[a-z][a-z0-9-]*[a-z0-9]-$`)
	for _, name := range []string{
		"TestPlan",
		"TestPlan/from_1.4_to_1.6",
		"Test_Ünïcode/__x__",
		"1",
		strings.Repeat("TestVeryLong/", 20),
	} {
		got := namePrefix(name)
		if len(got) > 57 || !dns.MatchString(got) {
			t.Errorf("namePrefix(%q) = %q, want a DNS label prefix of at most 57 characters ending with a dash", name, got)
		}
	}
	if got, want := namePrefix("TestPlan/from_1.4_to_1.6"), "testplan-from-1-4-to-1-6-"; got != want {
		t.Errorf("namePrefix = %q, want %q", got, want)
	}
}

func TestCheckBinariesMessage(t *testing.T) {
	dir := t.TempDir()
	err := checkBinaries(dir)
	want := "kube-apiserver test binaries not found in " + dir + "; run `make testbin`"
	if err == nil || err.Error() != want {
		t.Errorf("checkBinaries(empty dir) = %v, want %q", err, want)
	}
}
