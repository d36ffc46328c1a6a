// Package importer reads what a sylva-core ref proves about a Sylva release
// — the management cluster's Kubernetes minor, the full Kubernetes version
// per bootstrap provider, the version each known unit deploys — and
// rewrites the imported blocks of the release catalog from it.
//
// It reads a ref through an fs.FS (the git adapter lives in package ci) and
// never guesses: a value that only gotpl interpretation could give is left
// out with a note.
package importer
