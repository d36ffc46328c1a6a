//go:build !lite

package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"gitlab.com/sylva-projects/sylva-planner/availability"
)

func TestDefaultProdNamespacesMatchTheRules(t *testing.T) {
	if defaultProdNamespaces != availability.DefaultProdNamespaces {
		t.Errorf("defaultProdNamespaces = %q, availability says %q", defaultProdNamespaces, availability.DefaultProdNamespaces)
	}
}

// TestLiteBuildHandsClusterCommandsToTheFullBuild builds both binaries the
// way `make build` does and checks that the lite one answers offline
// commands itself and passes the others on, byte for byte and with the
// same exit code.
func TestLiteBuildHandsClusterCommandsToTheFullBuild(t *testing.T) {
	dir := t.TempDir()
	build := func(out string, tags ...string) {
		t.Helper()
		args := append([]string{"build"}, tags...)
		cmd := exec.Command("go", append(args, "-o", filepath.Join(dir, out), ".")...)
		cmd.Stderr = os.Stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("go build %v: %v", tags, err)
		}
	}
	build("sylva-planner", "-tags", "lite")
	build(companion)
	run := func(bin string, args ...string) (string, int) {
		t.Helper()
		cmd := exec.Command(filepath.Join(dir, bin), args...)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		code := 0
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			code = exit.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return out.String(), code
	}
	status := filepath.Join(dir, "status.yaml")
	if err := os.WriteFile(status, []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: sylva-units-status}\ndata: {sylva_release: \"1.4\"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"plan", "--from", "1.4", "--to", "1.6", "--as-of", "2026-11-30"},
		{"values", "generate", "--from", "1.4", "--to", "1.6"},
		{"status", "--file", status},
		{"plan", "--status", status, "--to", "1.6", "--as-of", "2026-11-30"},
		{"plan", "--from", "1.4", "--to", "1.40"},
		{"values", "render", "-f", "missing.yaml"},
	} {
		lite, liteCode := run("sylva-planner", args...)
		full, fullCode := run(companion, args...)
		if lite != full || liteCode != fullCode {
			t.Errorf("%v: lite build gave exit %d:\n%s\nfull build gave exit %d:\n%s", args, liteCode, lite, fullCode, full)
		}
	}
	if err := os.Remove(filepath.Join(dir, companion)); err != nil {
		t.Fatal(err)
	}
	out, code := run("sylva-planner", "values", "generate", "--from", "1.4", "--to", "1.6")
	if code != exitError || !bytes.Contains([]byte(out), []byte("sylva-planner-cluster")) {
		t.Errorf("without the full build: exit %d, %q; want exit 1 naming %s", code, out, companion)
	}
}
