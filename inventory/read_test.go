package inventory

import (
	"io/fs"
	"runtime"

	"gitlab.com/sylva-projects/sylva-planner/yamldoc"
)

// The whole-inventory read of a file tree, kept for the tests that check
// the decoding of manifests and Helm releases without Scan's facts.

// Read walks fsys and decodes every *.yaml, *.yml and *.json file: single
// objects, multi-document files and `kind: List` dumps. Helm release Secrets
// (type helm.sh/release.v1) are opened and their manifests read too: only
// the newest deployed revision of each release, within the bounds
// MaxReleaseBytes and MaxReleasesBytes (see SkippedReleases). A file that
// does not parse is listed in Skipped, not an error.
func Read(fsys fs.FS) (*Inventory, error) {
	return read(fsys, runtime.GOMAXPROCS(0))
}

// read is Read with at most workers files decoded at once.
func read(fsys fs.FS, workers int) (*Inventory, error) {
	f := &Facts{Inventory: &Inventory{}}
	err := f.walk(fsys, workers, func(part *Facts, p string, data []byte) error { return part.Inventory.addDocuments(p, data, 0) })
	if err != nil {
		return nil, err
	}
	return f.Inventory, nil
}

// addDocuments adds every document of data.
func (inv *Inventory) addDocuments(file string, data []byte, depth int) error {
	for _, doc := range yamldoc.Split(data) {
		if err := inv.addDocument(file, doc, depth); err != nil {
			return err
		}
	}
	return nil
}
