package fileio

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// fixture makes a directory holding a regular file, a symlink to it, a
// FIFO, a symlink to /dev/zero and a file over a 64-byte limit.
func fixture(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(filepath.Join(dir, "ok.yaml"), []byte("a: 1\n"), 0o644))
	must(os.Symlink("ok.yaml", filepath.Join(dir, "link.yaml")))
	must(syscall.Mkfifo(filepath.Join(dir, "fifo.yaml"), 0o644))
	must(os.Symlink("/dev/zero", filepath.Join(dir, "zero.yaml")))
	must(os.WriteFile(filepath.Join(dir, "big.yaml"), []byte(strings.Repeat("x", 65)), 0o644))
	return dir
}

func TestReadFileReadsOnlyRegularFilesUnderTheLimit(t *testing.T) {
	dir := fixture(t)
	tests := []struct {
		name, file string
		want       error // nil: reads "a: 1\n"
	}{
		{name: "a regular file is read", file: "ok.yaml"},
		{name: "a symlink to a regular file is read", file: "link.yaml"},
		{name: "a FIFO is refused without blocking", file: "fifo.yaml", want: ErrNotRegular},
		{name: "a symlink to /dev/zero is refused", file: "zero.yaml", want: ErrNotRegular},
		{name: "a directory is refused", file: ".", want: ErrNotRegular},
		{name: "a file over the limit is refused", file: "big.yaml", want: ErrTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			check := func(how string, data []byte, err error) {
				t.Helper()
				if tt.want == nil {
					if err != nil || string(data) != "a: 1\n" {
						t.Errorf("%s: %q, %v", how, data, err)
					}
					return
				}
				if !errors.Is(err, tt.want) {
					t.Fatalf("%s: error %v, want %v", how, err, tt.want)
				}
				if strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), filepath.Base(filepath.Join(dir, tt.file))) {
					t.Errorf("%s: error is not one line naming the file: %q", how, err)
				}
			}
			data, err := ReadFile(filepath.Join(dir, tt.file), 64)
			check("ReadFile", data, err)
			data, err = fs.ReadFile(DirFS(dir, 64), tt.file)
			check("DirFS", data, err)
		})
	}
}

func TestReadFileDefaultLimitIs16MiB(t *testing.T) {
	name := filepath.Join(t.TempDir(), "big")
	if err := os.WriteFile(name, make([]byte, 16<<20+1), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFile(name, 0); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "16 MiB") || !strings.Contains(err.Error(), LimitFlag) {
		t.Errorf("error %v, want the 16 MiB limit and %s named", err, LimitFlag)
	}
	if _, err := ReadFile(name, 17<<20); err != nil {
		t.Errorf("a raised limit: %v", err)
	}
}

func TestWriteFileReplacesOnlyRegularFiles(t *testing.T) {
	dir := fixture(t)
	tests := []struct {
		name, file string
		refused    bool
		changed    string // the file that holds the new content
	}{
		{name: "a new path is written", file: "new.prom", changed: "new.prom"},
		{name: "a regular file is replaced", file: "ok.yaml", changed: "ok.yaml"},
		{name: "a symlink is refused, its target left alone", file: "link.yaml", refused: true},
		{name: "a FIFO is refused", file: "fifo.yaml", refused: true},
		{name: "a symlink to a device is refused", file: "zero.yaml", refused: true},
		{name: "/dev/null is refused", file: "/dev/null", refused: true},
		{name: "a directory is refused", file: ".", refused: true},
		{name: "a path in a missing directory is refused", file: "missing/x.prom", refused: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name := tt.file
			if !filepath.IsAbs(name) {
				name = filepath.Join(dir, name)
			}
			before, _ := os.ReadFile(filepath.Join(dir, "ok.yaml"))
			err := WriteFile(name, []byte("written\n"), 0o644)
			if tt.refused {
				if err == nil {
					t.Fatal("written")
				}
				if got, _ := os.ReadFile(filepath.Join(dir, "ok.yaml")); string(got) != string(before) {
					t.Fatal("ok.yaml, a symlink's target, was written")
				}
				if strings.Contains(err.Error(), "\n") {
					t.Errorf("error is not one line: %q", err)
				}
				if cerr := CheckOutput(name); cerr == nil {
					t.Error("CheckOutput accepts it")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got, _ := os.ReadFile(filepath.Join(dir, tt.changed)); string(got) != "written\n" {
				t.Errorf("%s holds %q", tt.changed, got)
			}
			if st, err := os.Lstat(name); err != nil || st.Mode()&fs.ModeSymlink != 0 {
				t.Errorf("%s: mode %v, %v", tt.file, st.Mode(), err)
			}
		})
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("temporary file %s left behind", e.Name())
		}
	}
	if st, err := os.Stat("/dev/null"); err != nil || st.Mode()&fs.ModeCharDevice == 0 {
		t.Errorf("/dev/null changed: %v %v", st, err)
	}
}

func TestParseSize(t *testing.T) {
	good := map[string]int64{"16MiB": 16 << 20, "64 MiB": 64 << 20, "1GiB": 1 << 30, "4096": 4096, "2KiB": 2048}
	for in, want := range good {
		if got, err := ParseSize(in); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
		if got, _ := ParseSize(FormatSize(want)); got != want {
			t.Errorf("FormatSize(%d) = %q does not parse back", want, FormatSize(want))
		}
	}
	for _, bad := range []string{"", "0", "-1", "16MB", "x", "99999999999GiB"} {
		if _, err := ParseSize(bad); err == nil {
			t.Errorf("ParseSize(%q) accepted", bad)
		}
	}
}

// TestWriteFileKeepsTheOwnerAndMode: root rewriting a collector's file
// (nobody:nogroup, 0640) leaves it nobody's, 0640, so that the collector
// still reads it.
func TestWriteFileKeepsTheOwnerAndMode(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("only root can give a file to another user")
	}
	name := filepath.Join(t.TempDir(), "gate.prom")
	if err := os.WriteFile(name, []byte("old\n"), 0o640); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(name, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(name, []byte("new\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(name)
	if err != nil {
		t.Fatal(err)
	}
	sys := st.Sys().(*syscall.Stat_t)
	if sys.Uid != 65534 || sys.Gid != 65534 || st.Mode().Perm() != 0o640 {
		t.Errorf("owner %d:%d mode %v, want 65534:65534 and -rw-r-----", sys.Uid, sys.Gid, st.Mode().Perm())
	}
}

// TestWriteFileRemovesTheTempFilesOfAKilledRun: a run killed between
// creating its temporary file and renaming it leaves the file behind; the
// next write of the same name removes it once it is old, and leaves a
// fresh one (another writer's, in flight) alone.
func TestWriteFileRemovesTheTempFilesOfAKilledRun(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "gate.prom")
	stale, fresh := filepath.Join(dir, ".gate.prom.tmp-111"), filepath.Join(dir, ".gate.prom.tmp-222")
	for _, f := range []string{stale, fresh} {
		if err := os.WriteFile(f, []byte("partial"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	st, err := os.Stat(fresh)
	if err != nil {
		t.Fatal(err)
	}
	old := st.ModTime().Add(-time.Hour)
	if err := os.Chtimes(stale, old, old); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(name, []byte("new\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("the stale temporary file is still there (%v)", err)
	}
	if _, err := os.Stat(fresh); err != nil {
		t.Errorf("a fresh temporary file was removed: %v", err)
	}
}

// TestWriteFileAfterInterruptLeavesTheFile: once Interrupt has returned, a
// write leaves the old file whole and no temporary file behind.
func TestWriteFileAfterInterruptLeavesTheFile(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "m.prom")
	if err := WriteFile(name, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	Interrupt()
	t.Cleanup(func() { commit.Lock(); commit.stopped = false; commit.Unlock() })
	if err := WriteFile(name, []byte("new\n"), 0o644); !errors.Is(err, ErrInterrupted) {
		t.Fatalf("WriteFile after Interrupt = %v, want ErrInterrupted", err)
	}
	if b, _ := os.ReadFile(name); string(b) != "old\n" {
		t.Errorf("file holds %q, want the old content", b)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".m.prom.tmp-*")); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}
