// Package live holds the sources the actions read from a live cluster,
// over the kubeconfig rule of status/statuskube: the status of a release
// namespace (Status), of every namespace (Fleet), the facts of what runs
// (Facts, Nodes) and the objects lookup serves (Objects). Each connects
// when it is first read, so that a command that never reads the cluster
// never loads a kubeconfig. Reads only; nothing is written.
package live
