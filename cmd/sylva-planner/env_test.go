package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The SYLVA_PLANNER_* variables hold defaults: a flag typed on the
// command line wins over a variable of a flag it cannot go with, two
// typed together are refused, and an error about a value set in the
// environment names the variable. The flags read the process's
// environment, so these runs set it (t.Setenv) rather than a script's.
func TestEnvironmentDefaultsYieldToTypedFlags(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: sylva-units-status, namespace: wc1}\ndata: {sylva_release: \"1.4\"}\n")
	write("fleet.yaml", "apiVersion: v1\nkind: List\nitems:\n"+
		"- {apiVersion: v1, kind: ConfigMap, metadata: {name: sylva-units-status, namespace: wc1}, data: {sylva_release: \"1.4\"}}\n"+
		"- {apiVersion: v1, kind: ConfigMap, metadata: {name: sylva-units-status, namespace: wc2}, data: {sylva_release: \"1.5\"}}\n")
	tests := []struct {
		name     string
		env      map[string]string
		args     []string
		wantCode int
		want     string // in stdout or stderr
	}{
		{
			"-n from the environment does not conflict with -A",
			map[string]string{"SYLVA_PLANNER_NAMESPACE": "wc1"},
			[]string{"status", "-A", "-f", "fleet.yaml"},
			0, "wc2 ",
		},
		{
			"-n typed with -A is refused",
			map[string]string{"SYLVA_PLANNER_NAMESPACE": "wc1"},
			[]string{"status", "-A", "-n", "wc2", "-f", "fleet.yaml"},
			1, "give --all-namespaces or --namespace, not both",
		},
		{
			"a kubeconfig from the environment yields to --file",
			map[string]string{"SYLVA_PLANNER_KUBECONFIG": "nowhere"},
			[]string{"status", "-f", "cm.yaml", "-n", "wc1"},
			0, "Installed release:  1.4",
		},
		{
			"--kubeconfig typed with --file is refused", nil,
			[]string{"status", "-f", "cm.yaml", "--kubeconfig", "nowhere"},
			1, "give either --file or --kubeconfig/--context, not both",
		},
		{
			"a status file from the environment yields to --kubeconfig",
			map[string]string{"SYLVA_PLANNER_STATUS_FILE": "cm.yaml"},
			[]string{"status", "--kubeconfig", "nowhere"},
			1, "nowhere",
		},
		{
			"a kubeconfig from the environment yields to offline verify",
			map[string]string{"SYLVA_PLANNER_KUBECONFIG": "nowhere"},
			[]string{"verify", "--from", "1.4", "--to", "1.4", "--status", "cm.yaml", "--inventory", "."},
			2, "FAIL",
		},
		{
			"values generate -n from the environment is no -n typed",
			map[string]string{"SYLVA_PLANNER_NAMESPACE": "team-a"},
			[]string{"values", "generate", "--from", "1.4", "--to", "1.6"},
			0, "_internal:",
		},
		{
			"a bad date from the environment names the variable",
			map[string]string{"SYLVA_PLANNER_AS_OF": "yesterday"},
			[]string{"plan", "--from", "1.4", "--to", "1.6"},
			1, `SYLVA_PLANNER_AS_OF "yesterday" is not a date`,
		},
		{
			"a bad date typed names the flag",
			map[string]string{"SYLVA_PLANNER_AS_OF": "2026-01-01"},
			[]string{"plan", "--from", "1.4", "--to", "1.6", "--as-of", "yesterday"},
			1, `--as-of "yesterday" is not a date`,
		},
		{
			"a release from the environment is named as its variable",
			map[string]string{"SYLVA_PLANNER_TO": "0.9"},
			[]string{"plan", "--from", "1.4"},
			1, "sylva-planner: SYLVA_PLANNER_TO: release 0.9 is not in the catalog",
		},
		{
			"a release typed is named as its flag",
			map[string]string{"SYLVA_PLANNER_TO": "1.6"},
			[]string{"plan", "--from", "abc"},
			1, "sylva-planner: --from: version \"abc\"",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			var out, errOut bytes.Buffer
			code := runIn(t.Context(), dir, append([]string{"sylva-planner"}, tc.args...), &out, &errOut, os.Getenv)
			got := out.String() + errOut.String()
			if code != tc.wantCode || !strings.Contains(got, tc.want) {
				t.Errorf("sylva-planner %s: exit %d, want %d with %q\nstdout:\n%s\nstderr:\n%s", strings.Join(tc.args, " "), code, tc.wantCode, tc.want, out.String(), errOut.String())
			}
		})
	}
}
