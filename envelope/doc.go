// Package envelope defines what every JSON and YAML document of
// sylva-planner starts with: apiVersion, kind and metadata (the tool
// version, the catalog version and the date the document is computed for),
// and encodes documents in both formats with the same bytes for the same
// value. It also defines the Selection every suggested command repeats (the
// flags that select the cluster, namespace, catalog, chart and target). It
// imports nothing of the project, so that every package with an output can
// use it.
package envelope
