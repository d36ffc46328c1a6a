package fileio

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// ErrSymlink is wrapped by the error of an output path that is, or goes
// through, a symbolic link.
var ErrSymlink = errors.New("a symbolic link, which is not written through")

// ErrInterrupted is the error of a write after Interrupt: the file or
// directory was left as it was.
var ErrInterrupted = errors.New("interrupted before the file was replaced; it is unchanged")

// failWrite, when set (by tests), is called before the bytes of each file
// are written, with the file's path; its error stands for the write's
// (ENOSPC).
var failWrite func(name string) error

// commit orders the renames of the writes with Interrupt.
var commit struct {
	sync.Mutex
	stopped bool
}

// Interrupt stops the process's writes: a WriteFile or WriteDir that has
// not yet replaced its target leaves it as it was and returns
// ErrInterrupted, and one replacing its target now completes before
// Interrupt returns. A command's signal handler calls it first, so that an
// output is either replaced before the signal or not at all.
func Interrupt() {
	commit.Lock()
	commit.stopped = true
	commit.Unlock()
}

// staleTemp is the age past which a temporary file or directory of a
// write is left over from a killed run (a write takes milliseconds) rather
// than another writer's in flight.
const staleTemp = 10 * time.Minute

// tempName is a new name for a temporary file or directory of base, in
// the pattern removeStale knows.
func tempName(base string) string {
	return "." + base + ".tmp-" + strconv.FormatUint(rand.Uint64(), 36)
}

// split is the directory and the last component of the path name as
// given: unlike filepath.Dir, it cleans nothing away, so that a link
// followed by ".." stays in the path to be refused.
func split(name string) (dir, base string) {
	trimmed := strings.TrimRight(name, "/")
	i := strings.LastIndex(trimmed, "/")
	switch {
	case trimmed == "":
		return "/", "/"
	case i < 0:
		return ".", trimmed
	case i == 0:
		return "/", trimmed[1:]
	}
	return trimmed[:i], trimmed[i+1:]
}

// linkError is the error of the symbolic link link found in the path of
// the output name, with the path without links when it can be told.
func linkError(name, link string) error {
	hint := ""
	if real, err := filepath.EvalSymlinks(link); err == nil && strings.HasPrefix(name, link) {
		hint = ", " + filepath.Join(real, strings.TrimPrefix(name, link))
	}
	if filepath.Clean(name) == filepath.Clean(link) {
		return fmt.Errorf("%s is %w: give the path without links%s", link, ErrSymlink, hint)
	}
	return fmt.Errorf("%s: %s is %w: give the path without links%s", name, link, ErrSymlink, hint)
}

// walk opens the directory dir, component by component as given (".."
// included), following no symbolic link: fd is the deepest directory of
// the path that exists, at its path, rest the components below it that do
// not (none when dir exists). A link or a file among the components is an
// error naming name, the output whose path it is. The caller closes fd.
func walk(dir, name string) (fd int, at string, rest []string, err error) {
	abs := strings.HasPrefix(dir, "/")
	at = "."
	if abs {
		at = "/"
	}
	fd, err = unix.Open(at, dirFlags, 0)
	if err != nil {
		return -1, "", nil, &fs.PathError{Op: "open", Path: at, Err: err}
	}
	var comps []string
	for c := range strings.SplitSeq(dir, "/") {
		if c != "" && c != "." {
			comps = append(comps, c)
		}
	}
	for i, c := range comps {
		next, oerr := unix.Openat(fd, c, dirFlags|unix.O_NOFOLLOW, 0)
		prefix := strings.Join(comps[:i+1], "/")
		if abs {
			prefix = "/" + prefix
		}
		if oerr == nil {
			_ = unix.Close(fd)
			fd, at = next, prefix
			continue
		}
		var st unix.Stat_t
		if serr := unix.Fstatat(fd, c, &st, unix.AT_SYMLINK_NOFOLLOW); serr != nil {
			if errors.Is(serr, unix.ENOENT) {
				return fd, at, comps[i:], nil
			}
			_ = unix.Close(fd)
			return -1, "", nil, &fs.PathError{Op: "stat", Path: prefix, Err: serr}
		}
		_ = unix.Close(fd)
		switch m := modeOf(&st); {
		case m&fs.ModeSymlink != 0:
			return -1, "", nil, linkError(name, prefix)
		case !m.IsDir():
			return -1, "", nil, fmt.Errorf("%s: %s is %s, not a directory", name, prefix, kind(m))
		}
		return -1, "", nil, &fs.PathError{Op: "open", Path: prefix, Err: oerr}
	}
	return fd, at, nil, nil
}

// modeOf is the fs.FileMode of a stat result: its type and permissions.
func modeOf(st *unix.Stat_t) fs.FileMode {
	m := fs.FileMode(uint32(st.Mode) & 0o777) //nolint:unconvert // Mode is uint16 on some systems
	switch uint32(st.Mode) & unix.S_IFMT {    //nolint:unconvert // as above
	case unix.S_IFDIR:
		m |= fs.ModeDir
	case unix.S_IFLNK:
		m |= fs.ModeSymlink
	case unix.S_IFIFO:
		m |= fs.ModeNamedPipe
	case unix.S_IFSOCK:
		m |= fs.ModeSocket
	case unix.S_IFCHR:
		m |= fs.ModeDevice | fs.ModeCharDevice
	case unix.S_IFBLK:
		m |= fs.ModeDevice
	}
	return m
}

// lstatAt is the stat of name in the directory dirfd, not following a
// link; exists is false when there is none.
func lstatAt(dirfd int, name string) (st unix.Stat_t, exists bool, err error) {
	err = unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW)
	if errors.Is(err, unix.ENOENT) {
		return st, false, nil
	}
	return st, err == nil, err
}

// syncDir fsyncs the directory dirfd, so that a rename in it survives a
// crash; a directory that cannot be opened for it is left to the system.
func syncDir(dirfd int) {
	if fd, err := unix.Openat(dirfd, ".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0); err == nil {
		_ = unix.Fsync(fd)
		_ = unix.Close(fd)
	}
}

// readDirNames lists the directory dirfd (nil when it cannot be read).
func readDirNames(dirfd int, at string) []string {
	fd, err := unix.Openat(dirfd, at, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil
	}
	f := os.NewFile(uintptr(fd), at)
	defer func() { _ = f.Close() }() // read-only
	names, _ := f.Readdirnames(-1)
	slices.Sort(names)
	return names
}

// fileTarget is an output file: the directory it is in, opened following
// no link, and what is at its name now.
type fileTarget struct {
	name   string
	dir    int
	base   string
	exists bool
	st     unix.Stat_t
}

// openFile checks the output name (CheckOutput's rules but the probe) and
// opens its directory.
func openFile(name string) (*fileTarget, error) {
	dirName, base := split(name)
	dir, _, rest, err := walk(dirName, name)
	if err != nil {
		return nil, err
	}
	t := &fileTarget{name: name, dir: dir, base: base}
	if len(rest) > 0 {
		t.close()
		return nil, fmt.Errorf("%s: the directory does not exist: %w", name, &fs.PathError{Op: "stat", Path: dirName, Err: fs.ErrNotExist})
	}
	t.st, t.exists, err = lstatAt(dir, t.base)
	if err != nil {
		t.close()
		return nil, &fs.PathError{Op: "stat", Path: name, Err: err}
	}
	if t.exists {
		switch m := modeOf(&t.st); {
		case m&fs.ModeSymlink != 0:
			t.close()
			return nil, fmt.Errorf("%s is %w: give the path of the file itself", name, ErrSymlink)
		case !m.IsRegular():
			t.close()
			// An output is written in place of a regular file only (not
			// through a link): the input's advice would not do.
			return nil, fmt.Errorf("%s is %s, %w; give the path of a regular file, or of one to create", name, kind(m), ErrNotRegular)
		}
	}
	return t, nil
}

func (t *fileTarget) close() { _ = unix.Close(t.dir) }

// CheckOutput reports whether name may be written by WriteFile: a new
// path in an existing directory, or a regular file, with no symbolic link
// in any component of the path as given (its directories included). A
// link is refused, not written through: an output often lands in a
// directory others can write (a node exporter's textfile directory, say),
// and a link placed there, as the file or as a directory on the way to
// it, would turn a write by root into a write anywhere. Commands call it
// before their work, so that a bad output path is refused before anything
// is computed or printed.
func CheckOutput(name string) error {
	t, err := openFile(name)
	if err != nil {
		return err
	}
	defer t.close()
	// WriteFile writes a temporary file beside name: a directory that
	// refuses one (read-only, /proc) is found now, before the work.
	tmp := tempName(t.base)
	fd, err := unix.Openat(t.dir, tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	if err != nil {
		dirName, _ := split(name)
		return fmt.Errorf("%s: the directory cannot be written: %w", name, &fs.PathError{Op: "open", Path: filepath.Join(dirName, tmp), Err: err})
	}
	_ = unix.Close(fd)
	return unix.Unlinkat(t.dir, tmp, 0)
}

// WriteFile writes data to name atomically: a temporary file in the same
// directory, fsynced, renamed over name, then the directory fsynced. The
// directory is opened component by component following no link, and the
// temporary file and the rename are made in it, so that a link swapped in
// after the check is not followed either. name must pass CheckOutput; a
// symbolic link, device, FIFO or directory is never replaced.
// The file gets mode perm (or keeps the mode, and when the writer may, the
// owner and group of the file it replaces).
func WriteFile(name string, data []byte, perm fs.FileMode) (err error) {
	t, err := openFile(name)
	if err != nil {
		return err
	}
	defer t.close()
	owner, group := -1, -1
	if t.exists {
		perm = modeOf(&t.st).Perm()
		owner, group = int(t.st.Uid), int(t.st.Gid)
	}
	tmp := tempName(t.base)
	if err := writeAt(t.dir, tmp, name, data, perm, owner, group, func(now time.Time) {
		removeStale(t.dir, t.base, now, nil)
	}); err != nil {
		return err
	}
	commit.Lock()
	if commit.stopped {
		commit.Unlock()
		_ = unix.Unlinkat(t.dir, tmp, 0)
		return ErrInterrupted
	}
	err = unix.Renameat(t.dir, tmp, t.dir, t.base)
	commit.Unlock()
	if err != nil {
		_ = unix.Unlinkat(t.dir, tmp, 0)
		return &fs.PathError{Op: "rename", Path: name, Err: err}
	}
	syncDir(t.dir)
	return nil
}

// writeAt creates the new file tmp in the directory dirfd and writes data
// into it, fsynced, with mode perm and, when owner ≥ 0 and the writer may,
// that owner and group. created is called with the file's modification
// time, the file system's clock (this package reads none). name is the
// file it stands for, in errors. On an error tmp is removed.
func writeAt(dirfd int, tmp, name string, data []byte, perm fs.FileMode, owner, group int, created func(time.Time)) (err error) {
	fd, err := unix.Openat(dirfd, tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return &fs.PathError{Op: "create", Path: name, Err: err}
	}
	f := os.NewFile(uintptr(fd), name)
	defer func() {
		if err != nil {
			_ = f.Close()
			_ = unix.Unlinkat(dirfd, tmp, 0)
		}
	}()
	if created != nil {
		if st, err := f.Stat(); err == nil {
			created(st.ModTime())
		}
	}
	if failWrite != nil {
		if err = failWrite(name); err != nil {
			return &fs.PathError{Op: "write", Path: name, Err: err}
		}
	}
	if _, err = f.Write(data); err != nil {
		return err
	}
	if err = f.Chmod(perm); err != nil {
		return err
	}
	if owner >= 0 {
		// The file keeps its owner and group (a collector running as
		// nobody still reads what root rewrote). Only root may give a file
		// away; for anyone else the new file is theirs, as it was before.
		_ = f.Chown(owner, group)
	}
	if err = f.Sync(); err != nil {
		return err
	}
	return f.Close()
}

// removeStale removes the temporary files and directories a killed write
// of base left in the directory dirfd (SIGKILL runs no clean-up): those
// staleTemp older than now. Of a directory, only the files named in names
// are removed, then the directory if that empties it.
func removeStale(dirfd int, base string, now time.Time, names []string) {
	prefix := "." + base + ".tmp-"
	for _, n := range readDirNames(dirfd, ".") {
		if !strings.HasPrefix(n, prefix) {
			continue
		}
		st, ok, err := lstatAt(dirfd, n)
		if err != nil || !ok || now.Sub(time.Unix(st.Mtim.Unix())) <= staleTemp {
			continue
		}
		switch m := modeOf(&st); {
		case m.IsRegular():
			_ = unix.Unlinkat(dirfd, n, 0)
		case m.IsDir() && names != nil:
			removeDir(dirfd, n, names)
		}
	}
}

// removeDir removes, from the directory at in dirfd, the regular files
// named in names, then the directory if that empties it: anything else in
// it is left where it is.
func removeDir(dirfd int, at string, names []string) {
	fd, err := unix.Openat(dirfd, at, dirFlags|unix.O_NOFOLLOW, 0)
	if err != nil {
		return
	}
	for _, n := range names {
		if st, ok, err := lstatAt(fd, n); err == nil && ok && modeOf(&st).IsRegular() {
			_ = unix.Unlinkat(fd, n, 0)
		}
	}
	_ = unix.Close(fd)
	_ = unix.Unlinkat(dirfd, at, unix.AT_REMOVEDIR)
}

// MkdirAll creates the directory name and the missing ones above it, with
// mode perm (less the umask), following no symbolic link in the path as
// given: a link among its components is refused, as for an output file.
// undo removes the directories it created, if they are still empty; the
// caller calls it when what it meant to write there is refused.
func MkdirAll(name string, perm fs.FileMode) (undo func(), err error) {
	fd, at, rest, err := walk(name, name)
	if err != nil {
		return func() {}, err
	}
	var created []string
	undo = func() {
		for _, d := range slices.Backward(created) {
			_ = os.Remove(d)
		}
	}
	for _, c := range rest {
		at = filepath.Join(at, c)
		if err := unix.Mkdirat(fd, c, uint32(perm.Perm())); err != nil && !errors.Is(err, unix.EEXIST) {
			_ = unix.Close(fd)
			undo()
			return func() {}, &fs.PathError{Op: "mkdir", Path: at, Err: err}
		} else if err == nil {
			created = append(created, at)
		}
		next, err := unix.Openat(fd, c, dirFlags|unix.O_NOFOLLOW, 0)
		_ = unix.Close(fd)
		if err != nil {
			undo()
			return func() {}, &fs.PathError{Op: "open", Path: at, Err: err}
		}
		fd = next
	}
	_ = unix.Close(fd)
	return undo, nil
}

// dirTarget is an output directory: its parent (the deepest directory of
// its path that exists, opened following no link), the directories to
// create below that, and what the directory holds now.
type dirTarget struct {
	name    string
	parent  int
	missing []string // parents to create, then base
	base    string
	exists  bool
	st      unix.Stat_t
	files   map[string]unix.Stat_t // of names, those it holds
}

func (t *dirTarget) close() { _ = unix.Close(t.parent) }

// openDir checks the output directory name for WriteDir.
func openDir(name string, names []string) (*dirTarget, error) {
	dirName, base := split(name)
	switch {
	case base == "/" || filepath.Clean(name) == "/":
		return nil, fmt.Errorf("%s is the root directory, which is never replaced: give a directory of its own", name)
	case base == "." || base == "..":
		return nil, fmt.Errorf("%s ends in . or ..: name the directory by its own name", name)
	}
	parent, _, rest, err := walk(dirName, name)
	if err != nil {
		return nil, err
	}
	t := &dirTarget{name: name, parent: parent, missing: append(rest, base), base: base, files: map[string]unix.Stat_t{}}
	if len(rest) > 0 {
		return t, nil
	}
	t.st, t.exists, err = lstatAt(parent, base)
	if err != nil {
		t.close()
		return nil, &fs.PathError{Op: "stat", Path: name, Err: err}
	}
	if !t.exists {
		return t, nil
	}
	t.missing = nil
	switch m := modeOf(&t.st); {
	case m&fs.ModeSymlink != 0:
		t.close()
		return nil, fmt.Errorf("%s is %w: give the path of the directory itself", name, ErrSymlink)
	case !m.IsDir():
		t.close()
		return nil, fmt.Errorf("%s is %s, not a directory: give a directory, or a path to create one", name, kind(m))
	}
	dfd, err := unix.Openat(parent, base, dirFlags|unix.O_NOFOLLOW, 0)
	if err != nil {
		t.close()
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	defer func() { _ = unix.Close(dfd) }()
	var others []string
	for _, n := range readDirNames(parent, base) {
		st, ok, err := lstatAt(dfd, n)
		if err != nil || !ok {
			continue
		}
		if !slices.Contains(names, n) {
			others = append(others, n)
			continue
		}
		switch m := modeOf(&st); {
		case m&fs.ModeSymlink != 0:
			t.close()
			return nil, fmt.Errorf("%s is %w: give the path of the file itself", filepath.Join(name, n), ErrSymlink)
		case !m.IsRegular():
			t.close()
			return nil, fmt.Errorf("%s is %s, %w", filepath.Join(name, n), kind(m), ErrNotRegular)
		}
		t.files[n] = st
	}
	if len(others) > 0 {
		t.close()
		if len(others) > 3 {
			others = append(others[:3], fmt.Sprintf("%d more", len(others)-3))
		}
		return nil, fmt.Errorf("%s holds %s besides %s: it is replaced whole, so give a directory that holds only those files, or a new one", name, strings.Join(others, ", "), strings.Join(names, " and "))
	}
	return t, nil
}

// CheckOutputDir reports whether WriteDir may write the files names into
// the directory name: a new path (whose missing parents can be created), or
// a directory that holds none but regular files of names, with no symbolic
// link in any component of the path as given, and a parent that can be
// written (the new directory is made beside it). The root directory and a
// path ending in . or .. are refused.
func CheckOutputDir(name string, names []string) error {
	t, err := openDir(name, names)
	if err != nil {
		return err
	}
	defer t.close()
	probe := tempName(t.base)
	if len(t.missing) > 1 {
		probe = t.missing[0]
	}
	if err := unix.Mkdirat(t.parent, probe, 0o700); err != nil {
		return fmt.Errorf("%s: the directory above it cannot be written: %w", name, err)
	}
	return unix.Unlinkat(t.parent, probe, unix.AT_REMOVEDIR)
}

// WriteDir makes the directory name hold exactly files (by name), all at
// once: it writes them into a new directory beside name (".NAME.tmp-*"),
// fsyncs them, then exchanges it with name in one rename (or, for a new
// name, renames it into place) and removes the old directory. A reader, a
// crash or a kill at any moment sees the old files or the new ones, never
// a mix. On a file system that cannot exchange two directories (NFS), the
// exchange is two renames, and a kill between them leaves no name, the old
// directory at ".NAME.tmp-*". name must pass CheckOutputDir; the
// directories missing above it are created, and removed again on failure.
// The directory and each file keep the mode and, when the writer may, the
// owner and group of those they replace; new files get perm.
func WriteDir(name string, files map[string][]byte, perm fs.FileMode) (err error) {
	names := slices.Sorted(func(yield func(string) bool) {
		for n := range files {
			if !yield(n) {
				return
			}
		}
	})
	t, err := openDir(name, names)
	if err != nil {
		return err
	}
	defer t.close()
	// The missing parents, created following no link; the last missing
	// component is the directory itself, made by the rename.
	parent := t.parent
	var created []struct {
		fd   int
		name string
	}
	defer func() {
		if err != nil {
			for _, c := range slices.Backward(created) {
				_ = unix.Unlinkat(c.fd, c.name, unix.AT_REMOVEDIR)
			}
		}
		for _, c := range created {
			if c.fd != t.parent {
				_ = unix.Close(c.fd)
			}
		}
		if parent != t.parent {
			_ = unix.Close(parent)
		}
	}()
	for i := 0; i+1 < len(t.missing); i++ {
		c := t.missing[i]
		if err := unix.Mkdirat(parent, c, 0o755); err != nil {
			return &fs.PathError{Op: "mkdir", Path: name, Err: err}
		}
		created = append(created, struct {
			fd   int
			name string
		}{parent, c})
		next, err := unix.Openat(parent, c, dirFlags|unix.O_NOFOLLOW, 0)
		if err != nil {
			return &fs.PathError{Op: "open", Path: name, Err: err}
		}
		parent = next
	}
	tmp := tempName(t.base)
	if err := unix.Mkdirat(parent, tmp, 0o755); err != nil {
		return fmt.Errorf("%s: the directory above it cannot be written: %w", name, err)
	}
	tfd, err := unix.Openat(parent, tmp, dirFlags|unix.O_NOFOLLOW, 0)
	if err != nil {
		_ = unix.Unlinkat(parent, tmp, unix.AT_REMOVEDIR)
		return &fs.PathError{Op: "open", Path: name, Err: err}
	}
	committed := false
	defer func() {
		_ = unix.Close(tfd)
		if !committed {
			removeDir(parent, tmp, names)
		}
	}()
	if t.exists {
		_ = unix.Fchmodat(parent, tmp, uint32(modeOf(&t.st).Perm()), 0)
		_ = unix.Fchownat(parent, tmp, int(t.st.Uid), int(t.st.Gid), unix.AT_SYMLINK_NOFOLLOW)
	}
	var now time.Time
	if st, ok, err := lstatAt(parent, tmp); err == nil && ok {
		now = time.Unix(st.Mtim.Unix())
	}
	removeStale(parent, t.base, now, names)
	for _, n := range names {
		mode, owner, group := perm, -1, -1
		if st, ok := t.files[n]; ok {
			mode, owner, group = modeOf(&st).Perm(), int(st.Uid), int(st.Gid)
		}
		if err := writeAt(tfd, n, filepath.Join(name, n), files[n], mode, owner, group, nil); err != nil {
			return err
		}
	}
	syncDir(tfd)
	commit.Lock()
	if commit.stopped {
		commit.Unlock()
		return ErrInterrupted
	}
	old, err := swap(parent, tmp, t.base, t.exists)
	commit.Unlock()
	if err != nil {
		return &fs.PathError{Op: "rename", Path: name, Err: err}
	}
	committed = true
	syncDir(parent)
	if old != "" {
		removeDir(parent, old, names)
	}
	return nil
}

// swap puts the directory tmp in the place of base, both in dirfd: a
// rename when base does not exist, else an exchange, whose old directory,
// returned, is then at a temporary name.
func swap(dirfd int, tmp, base string, exists bool) (old string, err error) {
	if !exists {
		return "", unix.Renameat(dirfd, tmp, dirfd, base)
	}
	err = exchange(dirfd, tmp, base)
	if err == nil {
		return tmp, nil
	}
	if !errors.Is(err, errNoExchange) {
		return "", err
	}
	// Two renames: a kill between them leaves base missing and the old
	// directory at old.
	old = tempName(base)
	if err := unix.Renameat(dirfd, base, dirfd, old); err != nil {
		return "", err
	}
	if err := unix.Renameat(dirfd, tmp, dirfd, base); err != nil {
		_ = unix.Renameat(dirfd, old, dirfd, base)
		return "", err
	}
	return old, nil
}

// errNoExchange is exchange's error where the system or the file system
// cannot exchange two directories in one rename.
var errNoExchange = errors.New("no atomic exchange of directories")
