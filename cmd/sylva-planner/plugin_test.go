package main

import (
	"io"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
	"sigs.k8s.io/yaml"

	"gitlab.com/sylva-projects/sylva-planner/cliapp"
	"gitlab.com/sylva-projects/sylva-planner/envelope"
)

// TestKrewManifestInstallsThePluginBinary checks the krew manifest
// template that make krew fills in: every platform installs the binary
// kubectl runs as `kubectl sylva-planner`, from the archive of its own
// platform, and every placeholder is one hack/krew.sh fills.
func TestKrewManifestInstallsThePluginBinary(t *testing.T) {
	data, err := os.ReadFile("../../hack/krew/sylva-planner.yaml")
	if err != nil {
		t.Fatal(err)
	}
	placeholder := regexp.MustCompile(`\$\{(\w+)\}`)
	for _, m := range placeholder.FindAllStringSubmatch(string(data), -1) {
		if m[1] != "VERSION" && m[1] != "URL_BASE" && !strings.HasPrefix(m[1], "SHA256_") {
			t.Errorf("placeholder ${%s} is not one hack/krew.sh fills", m[1])
		}
	}
	var plugin struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Metadata   struct {
			Name string `json:"name"`
		} `json:"metadata"`
		Spec struct {
			Platforms []struct {
				Selector struct {
					MatchLabels map[string]string `json:"matchLabels"`
				} `json:"selector"`
				URI    string `json:"uri"`
				SHA256 string `json:"sha256"`
				Bin    string `json:"bin"`
			} `json:"platforms"`
		} `json:"spec"`
	}
	if err := yaml.Unmarshal([]byte(placeholder.ReplaceAllString(string(data), "x")), &plugin); err != nil {
		t.Fatal(err)
	}
	if plugin.APIVersion != "krew.googlecontainertools.github.com/v1alpha2" || plugin.Kind != "Plugin" || plugin.Metadata.Name != "sylva-planner" {
		t.Errorf("manifest is %s %s %q, want a krew Plugin named sylva-planner", plugin.APIVersion, plugin.Kind, plugin.Metadata.Name)
	}
	if len(plugin.Spec.Platforms) == 0 {
		t.Fatal("no platform")
	}
	raw := string(data)
	for _, p := range plugin.Spec.Platforms {
		osArch := p.Selector.MatchLabels["os"] + "_" + p.Selector.MatchLabels["arch"]
		if p.Bin != cliapp.PluginName {
			t.Errorf("%s installs %q, want %s", osArch, p.Bin, cliapp.PluginName)
		}
		if !strings.Contains(raw, "_"+osArch+".tar.gz\n    sha256: ${SHA256_"+osArch+"}") {
			t.Errorf("%s does not download its own archive with its own checksum", osArch)
		}
	}
}

// The selecting flags a suggested command repeats are flags that command
// takes: envelope's list agrees with the command line.
func TestSuggestedCommandsTakeTheirSelectingFlags(t *testing.T) {
	app := newApp(io.Discard, io.Discard)
	for _, name := range []string{"plan", "report", "status", "reconcile", "verify", "drain-check", "prune-audit", "ci-matrix", "values generate", "values check", "values render", "catalog list", "catalog show"} {
		var cmd *cli.Command
		cmds := app.Commands
		for _, word := range strings.Fields(name) {
			cmd = cliapp.FindCommand(cmds, word)
			if cmd == nil {
				t.Fatalf("no command %q", name)
			}
			cmds = cmd.Subcommands
		}
		flags, state := envelope.SelectingFlags(name)
		if state != "" {
			flags = append(flags, state)
		}
		for _, f := range flags {
			if !cliapp.HasFlag(cmd.Flags, strings.TrimLeft(f, "-")) {
				t.Errorf("%s has no flag %s, which its suggestions would give it", name, f)
			}
		}
	}
}
