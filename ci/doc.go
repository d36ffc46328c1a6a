// Package ci tells sylva-core's CI which migrations to test and checks the
// result: Matrix lists one upgrade scenario per supported source release of
// a target branch or release, with the passes and the status ConfigMap each
// pass must leave; Verify compares a cluster's final state with a plan.
//
// Matrix and Verify are pure. The git reader (ReadRepo) is the one adapter
// here: it runs `git` on a sylva-core checkout to learn which release
// branches exist and what their values say.
package ci
