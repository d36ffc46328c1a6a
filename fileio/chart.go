package fileio

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Stat is what name is, links followed (os.Stat): the one question about
// a path the actions ask, through this package, before they read it.
func Stat(name string) (fs.FileInfo, error) { return os.Stat(name) }

// CheckChart accepts a chart path that Helm's loader can read without
// harm: a regular file (an archive), or a directory with a Chart.yaml
// (checked first: a directory that is no chart, such as a home directory,
// is refused before it is walked) whose files are regular files,
// directories, or symbolic links to those inside the directory. A named
// pipe or a device (which would block the loader or feed it without end)
// and a link out of the chart (which would put, say, /etc/shadow into the
// chart's Files) are refused, naming the file. A dangling link is left to
// Helm (sylva-units' test-values hold some, which .helmignore skips).
func CheckChart(chartPath string) error {
	st, err := os.Stat(chartPath)
	switch {
	case err != nil:
		return err
	case st.Mode().IsRegular():
		return nil
	case !st.IsDir():
		return fmt.Errorf("not a chart directory or archive: %w", NotRegular(chartPath, st.Mode()))
	}
	if cs, err := os.Stat(filepath.Join(chartPath, "Chart.yaml")); err != nil || !cs.Mode().IsRegular() {
		return errors.New("not a chart directory: it has no Chart.yaml")
	}
	root, err := filepath.EvalSymlinks(chartPath)
	if err != nil {
		return err
	}
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == ".git" && p != root {
				return filepath.SkipDir
			}
			return nil
		}
		t := d.Type()
		if t&fs.ModeSymlink != 0 {
			dest, err := filepath.EvalSymlinks(p)
			if err != nil {
				return nil //nolint:nilerr // a dangling link is Helm's to report, where it reads it
			}
			if rel, err := filepath.Rel(root, dest); err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
				return fmt.Errorf("%s is a symbolic link out of the chart (to %s); a chart's files must be its own", p, dest)
			}
			ds, err := os.Stat(dest)
			if err != nil {
				return err
			}
			t = ds.Mode().Type()
		}
		if t != 0 && t&fs.ModeDir == 0 {
			return fmt.Errorf("a chart's files must be regular files: %w", NotRegular(p, t))
		}
		return nil
	})
}
