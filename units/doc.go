// Package units models the sylva-units chart's units as they are built from
// its values (unit_definition_defaults, then unit_templates in order, then
// the unit's own fields), reads the transitional-unit metadata
// (info.transitional-unit: from-X.Y) and audits which transitional units a
// release may prune.
//
// Values are merged as Helm merges them and read literally: every gotpl
// entry is listed as unresolved, never an error. A Resolver, filled by the
// caller with an engine that renders the real chart, can interpret them
// instead.
//
// It imports only skew and sigs.k8s.io/yaml: no catalog, no Helm, no
// cluster client. It never reads files, the clock or the environment, and
// never prints; the caller passes values as bytes and writes the typed
// Report it returns.
package units
