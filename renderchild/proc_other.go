//go:build !linux

package renderchild

import (
	"errors"
	"syscall"
)

// sysProcAttr: only Linux has a parent-death signal; elsewhere a
// killed parent leaves the child to its render budget's timeout.
func sysProcAttr() *syscall.SysProcAttr { return nil }

// residentBytes is unknown without /proc: the memory budget is then the
// child's soft memory limit only.
func residentBytes(int) (int64, error) {
	return 0, errors.New("resident memory is read from /proc, which this system lacks")
}
