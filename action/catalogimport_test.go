package action_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"gitlab.com/sylva-projects/sylva-planner/action"
	"gitlab.com/sylva-projects/sylva-planner/catalog"
	"gitlab.com/sylva-projects/sylva-planner/ci"
	"gitlab.com/sylva-projects/sylva-planner/internal/sylvacore"
)

// catalog import --ref main alone, on the bundle (main has no literal
// sylva_release; release-1.3 and the 1.x tags beside it), gives main the
// release ci-matrix gives it, counted from the checkout's releases.
func TestCatalogImportOfMainAloneCountsLikeCIMatrix(t *testing.T) {
	repo := sylvacore.Repo(t)
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	imp, err := action.CatalogImportRequest{Catalog: cat, SylvaCore: "sylva-core", SylvaCorePath: repo, Refs: []string{"main"}}.Run(ctx)
	if err != nil {
		t.Fatalf("catalog import --ref main: %v", err)
	}
	r, err := ci.ReadRepo(ctx, repo)
	if err != nil {
		t.Fatal(err)
	}
	want, _, ok := r.MainRelease()
	if !ok {
		t.Fatal("ci-matrix finds no release for main in the bundle")
	}
	if len(imp.Refs) != 1 || imp.Refs[0].Release != want.String() || !imp.Refs[0].Development {
		t.Errorf("catalog import --ref main = %+v, want release %s (ci-matrix's), a development line", imp.Refs, want)
	}
}

// updateFixture copies the embedded catalog's files into a new directory
// and returns it with the path of its releases file and that file's bytes.
func updateFixture(t *testing.T) (dir, file string, data []byte) {
	t.Helper()
	dir = t.TempDir()
	for _, name := range []string{"releases.yaml", "components.yaml"} {
		b, err := os.ReadFile(filepath.Join("..", "catalog", "data", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	file = filepath.Join(dir, "releases.yaml")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return dir, file, data
}

// runBounded runs req and fails the test if it has not returned after a
// minute (a FIFO read would block forever).
func runBounded(t *testing.T, req action.CatalogImportRequest) error {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		_, err := req.Run(context.Background())
		done <- err
	}()
	select {
	case err := <-done:
		return err
	case <-time.After(time.Minute):
		t.Fatal("catalog import --update still running after a minute")
		return nil
	}
}

// catalog import --update reads the other catalog files of the file's
// directory as --catalog DIR does (a FIFO or a link to a device is refused,
// not read) and checks the new catalog in memory: the file is never
// written when that fails.
func TestCatalogImportUpdateChecksTheDirectoryBeforeWriting(t *testing.T) {
	repo := sylvacore.Repo(t)
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		plant func(dir string) error
		want  string
	}{
		{name: "a FIFO beside the file", plant: func(dir string) error { return syscall.Mkfifo(filepath.Join(dir, "zz.yaml"), 0o644) }, want: "is a named pipe"},
		{name: "a link to /dev/zero beside the file", plant: func(dir string) error { return os.Symlink("/dev/zero", filepath.Join(dir, "zz.yaml")) }, want: "is a character device"},
		{name: "a catalog file that does not load with it", plant: func(dir string) error {
			return os.WriteFile(filepath.Join(dir, "zz.yaml"), []byte("apiVersion: x\nkind: Nothing\n"), 0o644)
		}, want: "the updated catalog does not load"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, file, data := updateFixture(t)
			// The imported block of 1.4, as the file would be before an
			// import, so that the update changes the file.
			stale := bytes.Replace(data, []byte("by `make catalog`"), []byte("by hand"), 1)
			if bytes.Equal(stale, data) {
				t.Fatal("the fixture has no imported block")
			}
			if err := os.WriteFile(file, stale, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := tt.plant(dir); err != nil {
				t.Fatal(err)
			}
			// A rewrite shows in the modification time (a new inode may
			// reuse the old one's number).
			old := time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC)
			if err := os.Chtimes(file, old, old); err != nil {
				t.Fatal(err)
			}
			err := runBounded(t, action.CatalogImportRequest{
				Catalog: cat, SylvaCore: "sylva-core", SylvaCorePath: repo, Refs: []string{"main"},
				Update: "releases.yaml", UpdatePath: file,
			})
			if err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("Run = %v, want one line with %q", err, tt.want)
			}
			if got, _ := os.ReadFile(file); !bytes.Equal(got, stale) {
				t.Error("the --update file changed")
			}
			if after, _ := os.Stat(file); !after.ModTime().Equal(old) {
				t.Error("the --update file was written (then restored)")
			}
		})
	}
}
