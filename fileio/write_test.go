package fileio

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// linkedTree makes a directory with a real directory "real" (holding
// keep.prom) and links to it: "klink" (-> real), and "abs" (-> the
// absolute path of real).
func linkedTree(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "real"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "real", "keep.prom"), []byte("kept\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("real", filepath.Join(dir, "klink")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "real"), filepath.Join(dir, "abs")); err != nil {
		t.Fatal(err)
	}
	return dir
}

// An output whose path goes through a directory link is refused, whatever
// the component: the file is not written, the link's target is unchanged.
func TestAnOutputThroughADirectoryLinkIsRefused(t *testing.T) {
	dir := linkedTree(t)
	for _, rel := range []string{"klink/keep.prom", "klink/new.prom", "abs/new.prom", "klink/../real/new.prom"} {
		t.Run(rel, func(t *testing.T) {
			name := filepath.Join(dir, rel)
			if strings.Contains(rel, "..") {
				// filepath.Join would clean the link away; the path as
				// given keeps it.
				name = dir + "/" + rel
			}
			for fn, err := range map[string]error{
				"CheckOutput": CheckOutput(name),
				"WriteFile":   WriteFile(name, []byte("x\n"), 0o644),
			} {
				if !errors.Is(err, ErrSymlink) || strings.Contains(err.Error(), "\n") {
					t.Errorf("%s(%s) = %v, want one line wrapping ErrSymlink", fn, rel, err)
				}
			}
			entries, _ := os.ReadDir(filepath.Join(dir, "real"))
			if len(entries) != 1 {
				t.Errorf("real holds %v, want only keep.prom", entries)
			}
			if b, _ := os.ReadFile(filepath.Join(dir, "real", "keep.prom")); string(b) != "kept\n" {
				t.Errorf("keep.prom holds %q", b)
			}
		})
	}
	err := CheckOutput(filepath.Join(dir, "klink", "new.prom"))
	if want := filepath.Join(dir, "real", "new.prom"); err == nil || !strings.HasSuffix(err.Error(), ", "+want) {
		t.Errorf("error %v does not end with the path without links, %s", err, want)
	}
}

// A relative output path is walked from the working directory, whose own
// path is not the output's.
func TestARelativeOutputIsWalkedFromTheWorkingDirectory(t *testing.T) {
	dir := linkedTree(t)
	t.Chdir(filepath.Join(dir, "abs"))
	if err := WriteFile("rel.prom", []byte("x\n"), 0o644); err != nil {
		t.Fatalf("WriteFile(rel.prom) in a linked working directory: %v", err)
	}
	if err := WriteFile("../klink/rel.prom", []byte("x\n"), 0o644); !errors.Is(err, ErrSymlink) {
		t.Errorf("WriteFile(../klink/rel.prom) = %v, want ErrSymlink", err)
	}
}

func TestMkdirAllFollowsNoLinkAndUndoes(t *testing.T) {
	dir := linkedTree(t)
	if _, err := MkdirAll(filepath.Join(dir, "klink", "man"), 0o755); !errors.Is(err, ErrSymlink) {
		t.Errorf("MkdirAll through klink = %v, want ErrSymlink", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "real", "man")); !os.IsNotExist(err) {
		t.Errorf("real/man was made: %v", err)
	}
	if _, err := MkdirAll(filepath.Join(dir, "klink"), 0o755); !errors.Is(err, ErrSymlink) {
		t.Errorf("MkdirAll of a link = %v, want ErrSymlink", err)
	}
	undo, err := MkdirAll(filepath.Join(dir, "a", "b", "c"), 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(filepath.Join(dir, "a", "b", "c")); err != nil || !st.IsDir() {
		t.Fatalf("a/b/c: %v", err)
	}
	undo()
	if _, err := os.Stat(filepath.Join(dir, "a")); !os.IsNotExist(err) {
		t.Errorf("undo left a: %v", err)
	}
}

// pairFiles is a pair of files of generation n: each names n, so a mix of
// two generations shows.
func pairFiles(n int) map[string][]byte {
	return map[string][]byte{
		"kustomization.yaml":     fmt.Appendf(nil, "generation %d\n", n),
		"transition-values.yaml": fmt.Appendf(nil, "generation %d\n%s", n, strings.Repeat("v", 4096*(n%4))),
	}
}

var pairNames = []string{"kustomization.yaml", "transition-values.yaml"}

// pairGeneration reads the pair in dir: its generation, or an error when
// the files are missing or of two generations.
func pairGeneration(dir string) (int, error) {
	gens := map[int]bool{}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0, err
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if !slices.Equal(names, pairNames) {
		return 0, fmt.Errorf("%s holds %v", dir, names)
	}
	for _, n := range pairNames {
		b, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			return 0, err
		}
		first, _, _ := strings.Cut(string(b), "\n")
		g, err := strconv.Atoi(strings.TrimPrefix(first, "generation "))
		if err != nil {
			return 0, fmt.Errorf("%s: %q", n, b)
		}
		gens[g] = true
	}
	if len(gens) != 1 {
		return 0, fmt.Errorf("a mixed pair: generations %v", gens)
	}
	for g := range gens {
		return g, nil
	}
	return 0, nil
}

func TestWriteDirReplacesThePairWhole(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "env", "transition")
	if err := WriteDir(dir, pairFiles(1), 0o644); err != nil {
		t.Fatalf("a new directory (and its parent): %v", err)
	}
	if g, err := pairGeneration(dir); err != nil || g != 1 {
		t.Fatalf("after the first write: %d, %v", g, err)
	}
	if err := os.Chmod(filepath.Join(dir, "kustomization.yaml"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := WriteDir(dir, pairFiles(2), 0o644); err != nil {
		t.Fatalf("replacing it: %v", err)
	}
	if g, err := pairGeneration(dir); err != nil || g != 2 {
		t.Fatalf("after the second write: %d, %v", g, err)
	}
	if st, _ := os.Stat(filepath.Join(dir, "kustomization.yaml")); st.Mode().Perm() != 0o600 {
		t.Errorf("kustomization.yaml mode %v, want the old -rw-------", st.Mode().Perm())
	}
	if left, _ := filepath.Glob(filepath.Join(root, "env", ".transition.tmp-*")); len(left) > 0 {
		t.Errorf("temporary directories left: %v", left)
	}
	empty := filepath.Join(root, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := WriteDir(empty, pairFiles(3), 0o644); err != nil {
		t.Fatalf("an empty directory: %v", err)
	}
}

func TestWriteDirRefuses(t *testing.T) {
	root := linkedTree(t)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(WriteDir(filepath.Join(root, "pair"), pairFiles(1), 0o644))
	must(os.Mkdir(filepath.Join(root, "busy"), 0o755))
	must(os.WriteFile(filepath.Join(root, "busy", "README.md"), nil, 0o644))
	must(os.Mkdir(filepath.Join(root, "linked"), 0o755))
	must(os.Symlink("../real/keep.prom", filepath.Join(root, "linked", "transition-values.yaml")))
	must(os.WriteFile(filepath.Join(root, "file"), nil, 0o644))
	tests := []struct{ name, dir, want string }{
		{name: "the root directory", dir: "/", want: "is the root directory"},
		{name: "a path ending in .", dir: filepath.Join(root, "pair") + "/.", want: "ends in . or ..: name the directory by its own name"},
		{name: "a directory holding other files", dir: filepath.Join(root, "busy"), want: "holds README.md besides"},
		{name: "a link to a directory", dir: filepath.Join(root, "klink"), want: "is a symbolic link"},
		{name: "a path through a link", dir: filepath.Join(root, "klink", "sub"), want: "klink is a symbolic link"},
		{name: "a linked file in it", dir: filepath.Join(root, "linked"), want: "transition-values.yaml is a symbolic link"},
		{name: "a file", dir: filepath.Join(root, "file"), want: "not a directory"},
		{name: "a path under a file", dir: filepath.Join(root, "file", "sub"), want: "not a directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for fn, err := range map[string]error{
				"CheckOutputDir": CheckOutputDir(tt.dir, pairNames),
				"WriteDir":       WriteDir(tt.dir, pairFiles(2), 0o644),
			} {
				if err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "\n") {
					t.Errorf("%s(%s) = %v, want one line with %q", fn, tt.dir, err, tt.want)
				}
			}
		})
	}
	if g, err := pairGeneration(filepath.Join(root, "pair")); err != nil || g != 1 {
		t.Errorf("pair changed: %d, %v", g, err)
	}
	if entries, _ := os.ReadDir(filepath.Join(root, "real")); len(entries) != 1 {
		t.Errorf("real holds %v", entries)
	}
	if _, err := os.Lstat("/kustomization.yaml"); err == nil {
		t.Error("/kustomization.yaml exists")
	}
}

// A full file system (the write of either file fails) leaves the old pair
// and no temporary directory; so does a write after Interrupt.
func TestAFailedWriteDirLeavesTheOldPair(t *testing.T) {
	for _, failing := range pairNames {
		t.Run("writing "+failing+" fails", func(t *testing.T) {
			root := t.TempDir()
			dir := filepath.Join(root, "transition")
			if err := WriteDir(dir, pairFiles(1), 0o644); err != nil {
				t.Fatal(err)
			}
			failWrite = func(name string) error {
				if filepath.Base(name) == failing {
					return syscall.ENOSPC
				}
				return nil
			}
			t.Cleanup(func() { failWrite = nil })
			err := WriteDir(dir, pairFiles(2), 0o644)
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatalf("WriteDir = %v, want ENOSPC", err)
			}
			if g, err := pairGeneration(dir); err != nil || g != 1 {
				t.Errorf("after ENOSPC: generation %d, %v; want the old pair", g, err)
			}
			if left, _ := filepath.Glob(filepath.Join(root, ".transition.tmp-*")); len(left) > 0 {
				t.Errorf("temporary directories left: %v", left)
			}
		})
	}
	t.Run("new, in a missing parent", func(t *testing.T) {
		root := t.TempDir()
		failWrite = func(string) error { return syscall.ENOSPC }
		t.Cleanup(func() { failWrite = nil })
		if err := WriteDir(filepath.Join(root, "env", "transition"), pairFiles(2), 0o644); !errors.Is(err, syscall.ENOSPC) {
			t.Fatalf("WriteDir = %v, want ENOSPC", err)
		}
		if entries, _ := os.ReadDir(root); len(entries) != 0 {
			t.Errorf("left %v", entries)
		}
	})
	t.Run("after Interrupt", func(t *testing.T) {
		root := t.TempDir()
		dir := filepath.Join(root, "transition")
		if err := WriteDir(dir, pairFiles(1), 0o644); err != nil {
			t.Fatal(err)
		}
		Interrupt()
		t.Cleanup(func() { commit.Lock(); commit.stopped = false; commit.Unlock() })
		if err := WriteDir(dir, pairFiles(2), 0o644); !errors.Is(err, ErrInterrupted) {
			t.Fatalf("WriteDir after Interrupt = %v, want ErrInterrupted", err)
		}
		if g, err := pairGeneration(dir); err != nil || g != 1 {
			t.Errorf("generation %d, %v; want the old pair", g, err)
		}
		if left, _ := filepath.Glob(filepath.Join(root, ".transition.tmp-*")); len(left) > 0 {
			t.Errorf("temporary directories left: %v", left)
		}
	})
}

// A temporary directory of a killed WriteDir is removed by the next one
// once stale; a fresh one is left alone.
func TestWriteDirRemovesTheTempDirectoriesOfAKilledRun(t *testing.T) {
	root := t.TempDir()
	stale, fresh := filepath.Join(root, ".transition.tmp-1"), filepath.Join(root, ".transition.tmp-2")
	for _, d := range []string{stale, fresh} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "kustomization.yaml"), []byte("partial"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(stale, old, old); err != nil {
		t.Fatal(err)
	}
	if err := WriteDir(filepath.Join(root, "transition"), pairFiles(1), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("the stale directory is still there (%v)", err)
	}
	if _, err := os.Stat(fresh); err != nil {
		t.Errorf("a fresh directory was removed: %v", err)
	}
}

// writeDirLoopEnv makes the test binary a process that rewrites the pair
// in the directory it names, generation after generation, until killed
// (TestWriteDirUnderSIGKILL).
const writeDirLoopEnv = "FILEIO_WRITEDIR_LOOP"

func TestMain(m *testing.M) {
	if dir := os.Getenv(writeDirLoopEnv); dir != "" {
		for n := 2; ; n++ {
			if err := WriteDir(dir, pairFiles(n), 0o644); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
		}
	}
	os.Exit(m.Run())
}

// TestWriteDirUnderSIGKILL kills a process rewriting the pair at random
// moments: the directory always holds one whole pair, old or new, never a
// mix and never nothing; and the next write succeeds.
func TestWriteDirUnderSIGKILL(t *testing.T) {
	if testing.Short() {
		t.Skip("kills processes")
	}
	root := t.TempDir()
	dir := filepath.Join(root, "transition")
	if err := WriteDir(dir, pairFiles(1), 0o644); err != nil {
		t.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	last := 1
	for i := range 40 {
		cmd := exec.Command(exe, "-test.run=^$")
		cmd.Env = append(os.Environ(), writeDirLoopEnv+"="+dir)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(5+rand.IntN(60)) * time.Millisecond)
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		g, err := pairGeneration(dir)
		if err != nil {
			t.Fatalf("kill %d: %v", i, err)
		}
		last = max(last, g)
	}
	t.Logf("newest generation seen: %d", last)
	if last == 1 {
		t.Log("no kill came after a write; the pair was the first each time")
	}
	if err := WriteDir(dir, pairFiles(1), 0o644); err != nil {
		t.Fatalf("a write after the kills: %v", err)
	}
	entries, _ := os.ReadDir(root)
	for _, e := range entries {
		if e.Name() != "transition" && !strings.HasPrefix(e.Name(), ".transition.tmp-") {
			t.Errorf("unexpected %s beside the directory", e.Name())
		}
	}
}
