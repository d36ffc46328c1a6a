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
//     or a new path: a device, a FIFO or a directory is never replaced;
//   - an output path goes through no symbolic link: neither the file nor
//     any directory of its path as given may be one, and the directory is
//     opened component by component following none (write.go);
//   - a set of files that belong together (WriteDir) is written into a
//     new directory that replaces the old one in one rename.
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
