package action

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"testing/fstest"

	"gitlab.com/sylva-projects/sylva-planner/catalog"
	"gitlab.com/sylva-projects/sylva-planner/fileio"
)

// CatalogFile is the catalog a command plans with, as --catalog names it:
// the embedded one (Name empty), standard input (Name "-", read with
// Stdin) or the file Name, found at Path (Name resolved against the
// working directory) and read up to MaxInput bytes.
type CatalogFile struct {
	Name, Path string
	Stdin      func() ([]byte, error)
	MaxInput   int64
}

// Load loads the catalog. Errors name --catalog and the file.
func (f CatalogFile) Load() (*catalog.Catalog, error) {
	switch f.Name {
	case "":
		cat, err := catalog.Default()
		if err != nil {
			return nil, fmt.Errorf("embedded catalog: %w", err)
		}
		return cat, nil
	case fileio.StdinName:
		data, err := f.Stdin()
		if err != nil {
			return nil, err
		}
		cat, err := catalog.LoadFile(fstest.MapFS{"stdin.yaml": {Data: data}}, "stdin.yaml")
		if err != nil {
			return nil, fmt.Errorf("--catalog -: %w", err)
		}
		return cat, nil
	}
	abs, err := filepath.Abs(f.Path)
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(abs); err != nil {
		// Named whole: the catalog reads its base name within its folder.
		return nil, fmt.Errorf("--catalog %s: %w; give a catalog file (sylva-planner catalog list -o yaml > catalog.yaml writes one)", f.Name, err)
	}
	cat, err := catalog.LoadFile(fileio.DirFS(filepath.Dir(abs), f.MaxInput), filepath.Base(abs))
	if err != nil {
		return nil, fmt.Errorf("--catalog %s: %w", f.Name, err)
	}
	return cat, nil
}

// BuildToolVersion is the build of this binary: version and commit as
// stamped at build time (make build), else what Go recorded: the module
// version of a `go install …@vX` build, and the commit of a build from a
// git checkout (vcs.revision, shortened, -dirty when modified).
func BuildToolVersion(version, commit string) ToolVersion {
	tv := ToolVersion{Version: version, Commit: commit, GoVersion: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return tv
	}
	if tv.Version == "dev" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		tv.Version = bi.Main.Version
	}
	if tv.Commit == "" {
		tv.Commit = recordedCommit(bi)
	}
	return tv
}

// recordedCommit is the commit Go recorded in bi, or "".
func recordedCommit(bi *debug.BuildInfo) string {
	rev, dirty := "", ""
	for _, s := range bi.Settings {
		switch {
		case s.Key == "vcs.revision":
			rev = s.Value
		case s.Key == "vcs.modified" && s.Value == "true":
			dirty = "-dirty"
		}
	}
	if rev == "" {
		return ""
	}
	return rev[:min(len(rev), 12)] + dirty
}
