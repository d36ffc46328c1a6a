// Package catalog holds what each Sylva release ships that matters to a
// release transition: Kubernetes minors and full versions per bootstrap
// provider, stepped components, pass-through versions and supported upgrade
// sources. The default catalog is embedded YAML, decoded strictly and
// validated.
//
// It imports only skew, reads only the files it is given, and never reads
// the clock or prints.
package catalog
