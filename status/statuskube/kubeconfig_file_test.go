package statuskube

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"gitlab.com/sylva-projects/sylva-planner/fileio"
)

// TestAKubeconfigThatIsNoFileIsRefusedBeforeItIsRead: client-go reads a
// kubeconfig whole, so /dev/zero would grow without end and a named pipe
// would block; both, and a file over the limit, are refused in one line.
func TestAKubeconfigThatIsNoFileIsRefusedBeforeItIsRead(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big")
	if err := os.WriteFile(big, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, maxKubeconfig+1); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, file string
		env        string
		want       string
	}{
		{"--kubeconfig /dev/zero", "/dev/zero", "", "character device"},
		{"--kubeconfig FIFO", fifo, "", "named pipe"},
		{"KUBECONFIG=/dev/zero", "", "/dev/zero", "character device"},
		{"a kubeconfig over the limit", big, "", "limit of 16 MiB"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := RESTConfig(ConfigOptions{Kubeconfig: tt.file, Getenv: func(k string) string {
				if k == "KUBECONFIG" {
					return tt.env
				}
				return ""
			}})
			if err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("RESTConfig: %v; want one line saying %q", err, tt.want)
			}
			if tt.want != "limit of 16 MiB" && !errors.Is(err, fileio.ErrNotRegular) {
				t.Errorf("%v does not wrap fileio.ErrNotRegular", err)
			}
		})
	}
	// A KUBECONFIG entry that does not exist is skipped, as kubectl does.
	if err := checkKubeconfigFile(filepath.Join(dir, "missing")); err != nil {
		t.Errorf("a missing KUBECONFIG entry: %v", err)
	}
}
