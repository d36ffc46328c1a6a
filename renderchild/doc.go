// Package renderchild runs a command of this binary again as a child
// process within a render budget, and watches it.
//
// The commands that run chart or user templates run templates from their
// input, which may loop, recurse or allocate without end, and Helm's engine
// cannot be interrupted. Such a command runs in a child process of the same
// binary while the parent watches it:
//
//   - Memory: the parent reads the child's resident set size every
//     PollInterval and kills it beyond the budget. The child sets a soft
//     memory limit (debug.SetMemoryLimit) below the budget, so its
//     collector works harder before the budget is reached. Address space
//     is not limited: a Go program reserves several times what it uses,
//     and a limit on it killed valid renders of the real chart.
//   - Time: the parent kills the child after the budget's timeout (wall
//     time).
//   - Stack: the child's goroutine stacks are limited to MaxStack, so a
//     template that includes itself ends in a second.
//
// The child dies with the parent (on Linux). Any crash of the child (a Go
// runtime fatal error exits 2, which is also a gate's exit code) is an
// error of one line; the child reports its own exit codes shifted by
// CodeBase (Exit) so that the two cannot be confused.
package renderchild
