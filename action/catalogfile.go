package action

import (
	"fmt"
	"path/filepath"

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

// Input names the catalog in a plan's header: "catalog embedded", or
// "catalog FILE".
func (f CatalogFile) Input() string {
	if f.Name == "" {
		return "catalog embedded"
	}
	return "catalog " + filepath.ToSlash(f.Name)
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
		cat, err := catalog.LoadData("stdin.yaml", data)
		if err != nil {
			return nil, fmt.Errorf("--catalog -: %w", err)
		}
		return cat, nil
	}
	abs, err := filepath.Abs(f.Path)
	if err != nil {
		return nil, err
	}
	if _, err := fileio.Stat(abs); err != nil {
		// Named whole: the catalog reads its base name within its folder.
		return nil, fmt.Errorf("--catalog %s: %w; give a catalog file (sylva-planner catalog list -o yaml > catalog.yaml writes one)", f.Name, err)
	}
	cat, err := catalog.LoadFile(fileio.DirFS(filepath.Dir(abs), f.MaxInput), filepath.Base(abs))
	if err != nil {
		return nil, fmt.Errorf("--catalog %s: %w", f.Name, err)
	}
	return cat, nil
}
