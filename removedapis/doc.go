// Package removedapis knows which Kubernetes API versions are removed, and in which
// minor: a knowledge base generated from the lifecycle information of
// k8s.io/api (plus a cited supplement for types upstream already deleted),
// committed as data/removed.json and embedded. Check turns the API versions
// objects were written with into findings for each pass of a plan.
//
// It is pure: no cluster client, no clock, no printing.
package removedapis

//go:generate go run ./internal/gen -o data/removed.json
