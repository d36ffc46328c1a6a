// Package yamldoc splits a multi-document YAML stream into its documents,
// by one rule for every reader in the module (manifests, the catalog, the
// status ConfigMap, lookup objects), and reads a value at a path of a
// decoded document (Dig, DigMap). It reads bytes only: no clock, no
// files, no cluster client.
package yamldoc
