package main

import (
	"archive/tar"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

func TestTheSameBinaryGivesTheSameDigest(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "sylva-planner")
	if err := os.WriteFile(bin, []byte("\x7fELF not really"), 0o755); err != nil {
		t.Fatal(err)
	}
	a, err := write(bin, "example.com/sylva-planner:v1", filepath.Join(dir, "a.tar"), "amd64", "v1")
	if err != nil {
		t.Fatal(err)
	}
	b, err := write(bin, "example.com/sylva-planner:v1", filepath.Join(dir, "b.tar"), "amd64", "v1")
	if err != nil {
		t.Fatal(err)
	}
	if a != b {
		t.Errorf("digests differ: %s then %s", a, b)
	}
	if err := os.WriteFile(bin, []byte("\x7fELF another"), 0o755); err != nil {
		t.Fatal(err)
	}
	c, err := write(bin, "example.com/sylva-planner:v1", filepath.Join(dir, "c.tar"), "amd64", "v1")
	if err != nil {
		t.Fatal(err)
	}
	if c == a {
		t.Errorf("another binary gives the same digest %s", c)
	}
}

func TestTheImageRunsTheBinaryAsNonRootWithoutAShell(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "sylva-planner")
	if err := os.WriteFile(bin, []byte("binary"), 0o755); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "image.tar")
	if _, err := write(bin, "example.com/sylva-planner:v1", out, "arm64", ""); err != nil {
		t.Fatal(err)
	}
	img, err := tarball.ImageFromPath(out, nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Config.User != "65532:65532" || len(cfg.Config.Entrypoint) != 1 || cfg.Config.Entrypoint[0] != "/sylva-planner" || cfg.Architecture != "arm64" {
		t.Errorf("config: user %q, entrypoint %q, arch %q", cfg.Config.User, cfg.Config.Entrypoint, cfg.Architecture)
	}
	layers, err := img.Layers()
	if err != nil || len(layers) != 1 {
		t.Fatalf("layers: %d, %v", len(layers), err)
	}
	rc, err := layers[0].Uncompressed()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	tr := tar.NewReader(rc)
	var names []string
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, h.Name)
		if h.Name == "bin/sh" || h.Name == "bin/" {
			t.Errorf("the image has %s", h.Name)
		}
	}
	if len(names) != 2 || names[1] != "sylva-planner" {
		t.Errorf("layer files = %q, want tmp/ and sylva-planner", names)
	}
}
