package fileio

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestCheckChartRefusesWhatHelmsLoaderWouldReadBlindly: Helm's loader
// reads every file of a chart directory and follows links, so a named pipe
// would block it and a link to /etc/passwd would put that file among the
// chart's Files (and in what a template renders of them).
func TestCheckChartRefusesWhatHelmsLoaderWouldReadBlindly(t *testing.T) {
	newChart := func(t *testing.T) string {
		t.Helper()
		dir := filepath.Join(t.TempDir(), "chart")
		for name, data := range map[string]string{
			"Chart.yaml":          "apiVersion: v2\nname: mini\nversion: 0.1.0\n",
			"values.yaml":         "a: 1\n",
			"templates/cm.yaml":   "kind: ConfigMap\n",
			"templates/_help.tpl": "{{- define \"x\" }}{{ end }}\n",
		} {
			p := filepath.Join(dir, filepath.FromSlash(name))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	t.Run("the chart as it is passes", func(t *testing.T) {
		if err := CheckChart(newChart(t)); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("a link inside the chart passes", func(t *testing.T) {
		dir := newChart(t)
		if err := os.Symlink("values.yaml", filepath.Join(dir, "again.yaml")); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink("missing.yaml", filepath.Join(dir, "dangling.yaml")); err != nil {
			t.Fatal(err)
		}
		if err := CheckChart(dir); err != nil {
			t.Fatal(err)
		}
	})
	for _, tt := range []struct {
		name string
		make func(dir string) error
		want string
	}{
		{"a link out of the chart", func(dir string) error { return os.Symlink("/etc/passwd", filepath.Join(dir, "templates", "evil.txt")) }, "symbolic link out of the chart"},
		{"a named pipe", func(dir string) error { return syscall.Mkfifo(filepath.Join(dir, "fifo.yaml"), 0o600) }, "named pipe"},
		{"a link to a device", func(dir string) error { return os.Symlink("/dev/zero", filepath.Join(dir, "zero.yaml")) }, "out of the chart"},
	} {
		t.Run(tt.name+" is refused", func(t *testing.T) {
			dir := newChart(t)
			if err := tt.make(dir); err != nil {
				t.Fatal(err)
			}
			err := CheckChart(dir)
			if err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("CheckChart: %v; want one line saying %q", err, tt.want)
			}
		})
	}
	t.Run("a directory without Chart.yaml is refused before it is walked", func(t *testing.T) {
		// The pipe would make a walk fail on it: the message says the
		// directory is no chart instead.
		dir := t.TempDir()
		if err := syscall.Mkfifo(filepath.Join(dir, "fifo.yaml"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := CheckChart(dir); err == nil || err.Error() != "not a chart directory: it has no Chart.yaml" {
			t.Fatalf("CheckChart: %v; want it to say the directory has no Chart.yaml", err)
		}
	})
	t.Run("a named pipe as the chart path is refused", func(t *testing.T) {
		fifo := filepath.Join(t.TempDir(), "chart.tgz")
		if err := syscall.Mkfifo(fifo, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := CheckChart(fifo); err == nil || !strings.Contains(err.Error(), "not a chart directory or archive") {
			t.Fatalf("CheckChart: %v", err)
		}
	})
}
