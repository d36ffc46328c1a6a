// Package sylvacore gives tests the real sylva-core trees to check against:
// the refs of the sylva-core git bundle beside the project
// (shared/sylva-core/sylva-core.bundle in an ancestor of the module root, or
// the file named by SYLVA_CORE_BUNDLE), or the checkout named by
// SYLVA_CORE_DIR. Tests that need them skip with one line when neither is
// there. Nothing of sylva-core is copied into the repository: each ref is
// extracted once into the system's temporary directory, keyed by its commit,
// and shared by every test process.
package sylvacore
