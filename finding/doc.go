// Package finding holds the one typed remark every command reports: a
// Finding with its stable Code, its Severity and, for the gate, its Class.
// status and planner build them; both name them through aliases. It
// imports nothing of the module.
package finding
