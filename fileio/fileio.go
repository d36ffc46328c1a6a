// Package fileio reads the files the command line names and writes the
// files it produces, safely:
//
//   - an input is read only when it is a regular file (a symlink to one is
//     followed); a directory, named pipe, socket or device is refused
//     before it is opened, so a FIFO cannot block and /dev/zero cannot fill
//     memory;
//   - an input is read up to a limit (DefaultMaxSize unless raised), and a
//     larger one is refused;
//   - an output is written to a temporary file in the same directory,
//     fsynced, then renamed over the target, and only over a regular file
//     or a new path: a device, a FIFO or a directory is never replaced.
//
// It uses the operating system's file calls only: no clock, no
// environment, no standard stream, no cluster.
package fileio

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// DefaultMaxSize is the input limit unless raised: 16 MiB, sixteen times
// what a Kubernetes object (a ConfigMap) may hold.
const DefaultMaxSize int64 = 16 << 20

// LimitFlag is the command-line flag that raises the input limit, named in
// the error of a file over it.
const LimitFlag = "--max-input-size"

// ErrNotRegular is wrapped by the error of an input or output that is not a
// regular file.
var ErrNotRegular = errors.New("not a regular file")

// ErrTooLarge is wrapped by the error of an input over the limit.
var ErrTooLarge = errors.New("larger than the input limit")

// kind names what a non-regular file is.
func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSymlink != 0:
		return "a symlink"
	}
	return "not a regular file"
}

func notRegular(name string, m fs.FileMode) error {
	return NotRegular(name, m)
}

// NotRegular is the error of an input name of mode m that is not a regular
// file: what it is, wrapping ErrNotRegular.
func NotRegular(name string, m fs.FileMode) error {
	return fmt.Errorf("%s is %s, %w; give a regular file (or a symlink to one)", name, kind(m), ErrNotRegular)
}

func tooLarge(name string, max int64) error {
	return fmt.Errorf("%s is %w of %s; raise it with %s if the file is right", name, ErrTooLarge, FormatSize(max), LimitFlag)
}

// normMax is max, or DefaultMaxSize when max is not positive.
func normMax(max int64) int64 {
	if max <= 0 {
		return DefaultMaxSize
	}
	return max
}

// ReadFile reads the regular file name (following symlinks) of at most max
// bytes (DefaultMaxSize when max ≤ 0).
func ReadFile(name string, max int64) ([]byte, error) {
	st, err := os.Stat(name)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, notRegular(name, st.Mode())
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }() // read-only: nothing to flush
	return readAll(f, name, normMax(max))
}

// StdinName is the file name that means standard input on the command
// line ("-f -").
const StdinName = "-"

// ReadStdin reads r, the standard input, to its end: at most max bytes
// (DefaultMaxSize when max ≤ 0), as for a file.
func ReadStdin(r io.Reader, max int64) ([]byte, error) {
	max = normMax(max)
	if r == nil {
		return nil, errors.New("standard input is not available")
	}
	data, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return nil, fmt.Errorf("standard input: %w", err)
	}
	if int64(len(data)) > max {
		return nil, tooLarge("standard input", max)
	}
	return data, nil
}

// readAll reads f, checking again that it is a regular file (the path may
// have changed since it was checked) and that it holds at most max bytes.
func readAll(f fs.File, name string, max int64) ([]byte, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, notRegular(name, st.Mode())
	}
	if st.Size() > max {
		return nil, tooLarge(name, max)
	}
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, tooLarge(name, max)
	}
	return data, nil
}

// DirFS is os.DirFS(root) that opens only directories and regular files
// (following symlinks) and reads files of at most max bytes
// (DefaultMaxSize when max ≤ 0): fs.WalkDir and fs.ReadFile over it refuse
// a FIFO, a device or an oversized file with an error naming it.
func DirFS(root string, max int64) fs.FS {
	return &dirFS{root: root, os: os.DirFS(root), max: normMax(max)}
}

type dirFS struct {
	root string
	os   fs.FS
	max  int64
}

var (
	_ fs.ReadFileFS = (*dirFS)(nil)
	_ fs.ReadDirFS  = (*dirFS)(nil)
	_ fs.StatFS     = (*dirFS)(nil)
)

// display names a file of the FS for errors: its path under root.
func (d *dirFS) display(name string) string {
	return filepath.Join(d.root, filepath.FromSlash(name))
}

func (d *dirFS) Open(name string) (fs.File, error) {
	st, err := fs.Stat(d.os, name)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() && !st.Mode().IsRegular() {
		return nil, notRegular(d.display(name), st.Mode())
	}
	return d.os.Open(name)
}

func (d *dirFS) ReadFile(name string) ([]byte, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "read", Path: name, Err: fs.ErrInvalid}
	}
	f, err := d.Open(name)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }() // read-only: nothing to flush
	return readAll(f, d.display(name), d.max)
}

func (d *dirFS) ReadDir(name string) ([]fs.DirEntry, error) { return fs.ReadDir(d.os, name) }

func (d *dirFS) Stat(name string) (fs.FileInfo, error) { return fs.Stat(d.os, name) }

// CheckOutput reports whether name may be written by WriteFile: it is a
// new path in an existing directory, or a regular file. A symbolic link is
// refused, not written through: an output often lands in a directory others
// can write (a node exporter's textfile directory, say), and a link placed
// there would turn a write by root into a write anywhere. Commands call it
// before their work, so that a bad output path is refused before anything
// is computed or printed.
func CheckOutput(name string) error {
	st, err := os.Lstat(name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		dir, derr := os.Stat(filepath.Dir(name))
		if derr != nil {
			return fmt.Errorf("%s: the directory does not exist: %w", name, derr)
		}
		if !dir.IsDir() {
			return fmt.Errorf("%s: %s is not a directory", name, filepath.Dir(name))
		}
	case err != nil:
		return err
	case st.Mode()&fs.ModeSymlink != 0:
		return fmt.Errorf("%s is a symbolic link, which is not written through: give the path of the file itself", name)
	case !st.Mode().IsRegular():
		// An output is written in place of a regular file only (not
		// through a link): the input's advice would not do.
		return fmt.Errorf("%s is %s, %w; give the path of a regular file, or of one to create", name, kind(st.Mode()), ErrNotRegular)
	}
	// WriteFile writes a temporary file beside name: a directory that
	// refuses one (read-only, /proc) is found now, before the work.
	probe, err := os.CreateTemp(filepath.Dir(name), "."+filepath.Base(name)+".tmp-*")
	if err != nil {
		return fmt.Errorf("%s: the directory cannot be written: %w", name, err)
	}
	_ = probe.Close()
	return os.Remove(probe.Name())
}

// WriteFile writes data to name atomically: a temporary file in the same
// directory, fsynced, renamed over name, then the directory fsynced. name
// must pass CheckOutput; a symbolic link, device, FIFO or directory is
// never replaced.
// The file gets mode perm (or keeps the mode, and when the writer may, the
// owner and group of the file it replaces).
func WriteFile(name string, data []byte, perm fs.FileMode) (err error) {
	if err := CheckOutput(name); err != nil {
		return err
	}
	target := name
	owner := -1
	var group int
	if st, err := os.Stat(target); err == nil {
		perm = st.Mode().Perm()
		if sys, ok := st.Sys().(*syscall.Stat_t); ok {
			owner, group = int(sys.Uid), int(sys.Gid)
		}
	}
	dir := filepath.Dir(target)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(target)+".tmp-*")
	if err != nil {
		return err
	}
	if st, err := tmp.Stat(); err == nil {
		removeStaleTemps(dir, filepath.Base(target), st.ModTime())
	}
	defer func() {
		if err != nil {
			_ = tmp.Close()
			_ = os.Remove(tmp.Name())
		}
	}()
	if _, err = tmp.Write(data); err != nil {
		return err
	}
	if err = tmp.Chmod(perm); err != nil {
		return err
	}
	if owner >= 0 {
		// The file keeps its owner and group (a collector running as
		// nobody still reads what root rewrote). Only root may give a file
		// away; for anyone else the new file is theirs, as it was before.
		_ = tmp.Chown(owner, group)
	}
	if err = tmp.Sync(); err != nil {
		return err
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	commit.Lock()
	if commit.stopped {
		commit.Unlock()
		return ErrInterrupted
	}
	err = os.Rename(tmp.Name(), target)
	commit.Unlock()
	if err != nil {
		return err
	}
	if d, derr := os.Open(dir); derr == nil {
		_ = d.Sync()
		_ = d.Close()
	}
	return nil
}

// ErrInterrupted is WriteFile's error after Interrupt: the file was left
// as it was.
var ErrInterrupted = errors.New("interrupted before the file was replaced; it is unchanged")

// commit orders WriteFile's renames with Interrupt.
var commit struct {
	sync.Mutex
	stopped bool
}

// Interrupt stops the process's writes: a WriteFile that has not yet
// replaced its file leaves it as it was and returns ErrInterrupted, and
// one replacing its file now completes before Interrupt returns. A
// command's signal handler calls it first, so that a file is either
// replaced before the signal or not at all.
func Interrupt() {
	commit.Lock()
	commit.stopped = true
	commit.Unlock()
}

// staleTemp is the age past which a temporary file of WriteFile is left
// over from a killed run (a write takes milliseconds) rather than another
// writer's in flight.
const staleTemp = 10 * time.Minute

// removeStaleTemps removes the temporary files a killed WriteFile of base
// left in dir (SIGKILL runs no clean-up): those staleTemp older than now,
// the modification time of the temporary file just created (the file
// system's clock, so that this package reads none).
func removeStaleTemps(dir, base string, now time.Time) {
	olds, _ := filepath.Glob(filepath.Join(dir, "."+globQuote(base)+".tmp-*"))
	for _, f := range olds {
		if st, err := os.Lstat(f); err == nil && st.Mode().IsRegular() && now.Sub(st.ModTime()) > staleTemp {
			_ = os.Remove(f)
		}
	}
}

// globQuote escapes the characters filepath.Match gives a meaning to.
func globQuote(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`*?[\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// ParseSize parses a size: a number of bytes, or a number with the suffix
// KiB, MiB or GiB ("16MiB", "64 MiB"). It must be positive.
func ParseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"B", 1}} {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n <= 0 || n > (1<<62)/mult {
		return 0, fmt.Errorf("size %q: give a positive number of bytes, or one with KiB, MiB or GiB, for example 64MiB", s)
	}
	return n * mult, nil
}

// FormatSize writes n bytes the way ParseSize reads them, in the largest
// unit that divides it.
func FormatSize(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return strconv.FormatInt(n>>30, 10) + " GiB"
	case n >= 1<<20 && n%(1<<20) == 0:
		return strconv.FormatInt(n>>20, 10) + " MiB"
	case n >= 1<<10 && n%(1<<10) == 0:
		return strconv.FormatInt(n>>10, 10) + " KiB"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}
