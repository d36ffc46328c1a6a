package ci

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"
	"time"
)

// Checkout reads a sylva-core git repository (a working checkout or a bare
// clone) through git, without touching its work tree.
type Checkout struct {
	Dir string
}

// Resolve turns a tag or branch name into a commit. A branch is found
// locally or as a remote-tracking branch of any remote, so "release-1.3"
// names origin/release-1.3 in a fresh clone.
func (c Checkout) Resolve(ctx context.Context, ref string) (string, error) {
	candidates := []string{"refs/tags/" + ref, "refs/heads/" + ref}
	remotes, err := git(ctx, c.Dir, "for-each-ref", "--format=%(refname)", "refs/remotes")
	if err != nil {
		return "", err
	}
	for _, r := range strings.Fields(remotes) {
		if _, name, ok := strings.Cut(strings.TrimPrefix(r, "refs/remotes/"), "/"); ok && name == ref {
			candidates = append(candidates, r)
		}
	}
	candidates = append(candidates, ref)
	for _, r := range candidates {
		out, err := git(ctx, c.Dir, "rev-parse", "--verify", "--quiet", r+"^{commit}")
		if err == nil && strings.TrimSpace(out) != "" {
			return strings.TrimSpace(out), nil
		}
	}
	return "", fmt.Errorf("ref %q: no such tag or branch in %s", ref, c.Dir)
}

// Refs lists the release tags (X.Y.Z) and the main and release-X.Y
// branches, local or remote-tracking, each name once, sorted.
func (c Checkout) Refs(ctx context.Context) (tags, branches []string, err error) {
	out, err := git(ctx, c.Dir, "for-each-ref", "--format=%(refname)", "refs/tags", "refs/heads", "refs/remotes")
	if err != nil {
		return nil, nil, err
	}
	for _, ref := range strings.Fields(out) {
		switch {
		case strings.HasPrefix(ref, "refs/tags/"):
			tags = append(tags, strings.TrimPrefix(ref, "refs/tags/"))
		case strings.HasPrefix(ref, "refs/heads/"):
			branches = append(branches, strings.TrimPrefix(ref, "refs/heads/"))
		default:
			if _, name, ok := strings.Cut(strings.TrimPrefix(ref, "refs/remotes/"), "/"); ok {
				branches = append(branches, name)
			}
		}
	}
	branches = slices.DeleteFunc(branches, func(b string) bool { return b != "main" && !isReleaseBranch(b) })
	slices.Sort(tags)
	slices.Sort(branches)
	return slices.Compact(tags), slices.Compact(branches), nil
}

// FS returns the tree of commit as a read-only file system: files are read
// with git cat-file and directories listed with git ls-tree, on demand.
func (c Checkout) FS(ctx context.Context, commit string) fs.FS {
	return &gitFS{ctx: ctx, dir: c.Dir, commit: commit}
}

type gitFS struct {
	ctx    context.Context
	dir    string
	commit string
}

func (g *gitFS) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	typ, err := git(g.ctx, g.dir, "cat-file", "-t", g.commit+":"+gitPath(name))
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	switch strings.TrimSpace(typ) {
	case "blob":
		data, err := git(g.ctx, g.dir, "cat-file", "blob", g.commit+":"+gitPath(name))
		if err != nil {
			return nil, &fs.PathError{Op: "open", Path: name, Err: err}
		}
		return &gitFile{name: path.Base(name), r: bytes.NewReader([]byte(data)), size: int64(len(data))}, nil
	case "tree":
		return &gitFile{name: path.Base(name), dir: true, fsys: g, path: name}, nil
	}
	return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
}

// ReadDir lists a directory of the commit with git ls-tree.
func (g *gitFS) ReadDir(name string) ([]fs.DirEntry, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrInvalid}
	}
	out, err := git(g.ctx, g.dir, "ls-tree", "-z", g.commit+":"+gitPath(name))
	if err != nil {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrNotExist}
	}
	var entries []fs.DirEntry
	for _, line := range strings.Split(out, "\x00") {
		meta, file, ok := strings.Cut(line, "\t")
		if !ok {
			continue
		}
		fields := strings.Fields(meta)
		entries = append(entries, dirEntry{name: file, dir: len(fields) > 1 && fields[1] == "tree"})
	}
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return entries, nil
}

func gitPath(name string) string {
	if name == "." {
		return ""
	}
	return name
}

type gitFile struct {
	name string
	r    *bytes.Reader
	size int64
	dir  bool
	fsys *gitFS
	path string
	// entries and offset page a directory's listing.
	entries []fs.DirEntry
	offset  int
}

func (f *gitFile) Stat() (fs.FileInfo, error) {
	return fileInfo{name: f.name, size: f.size, dir: f.dir}, nil
}
func (f *gitFile) Close() error { return nil }

func (f *gitFile) Read(b []byte) (int, error) {
	if f.dir {
		return 0, &fs.PathError{Op: "read", Path: f.name, Err: errors.New("is a directory")}
	}
	return f.r.Read(b)
}

// ReadDir makes a directory opened from the file system listable.
func (f *gitFile) ReadDir(n int) ([]fs.DirEntry, error) {
	if !f.dir {
		return nil, &fs.PathError{Op: "readdir", Path: f.name, Err: errors.New("not a directory")}
	}
	if f.entries == nil {
		entries, err := f.fsys.ReadDir(f.path)
		if err != nil {
			return nil, err
		}
		f.entries = entries
	}
	rest := f.entries[f.offset:]
	if n <= 0 {
		f.offset = len(f.entries)
		return rest, nil
	}
	if len(rest) == 0 {
		return nil, io.EOF
	}
	n = min(n, len(rest))
	f.offset += n
	return rest[:n], nil
}

type fileInfo struct {
	name string
	size int64
	dir  bool
}

func (i fileInfo) Name() string { return i.name }
func (i fileInfo) Size() int64  { return i.size }
func (i fileInfo) Mode() fs.FileMode {
	if i.dir {
		return fs.ModeDir | 0o555
	}
	return 0o444
}
func (i fileInfo) ModTime() time.Time { return time.Time{} }
func (i fileInfo) IsDir() bool        { return i.dir }
func (i fileInfo) Sys() any           { return nil }

type dirEntry struct {
	name string
	dir  bool
}

func (d dirEntry) Name() string               { return d.name }
func (d dirEntry) IsDir() bool                { return d.dir }
func (d dirEntry) Type() fs.FileMode          { return fileInfo{dir: d.dir}.Mode().Type() }
func (d dirEntry) Info() (fs.FileInfo, error) { return fileInfo{name: d.name, dir: d.dir}, nil }
