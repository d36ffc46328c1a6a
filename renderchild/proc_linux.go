package renderchild

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"syscall"
)

// sysProcAttr has the kernel kill the child when its parent
// dies, so that a parent killed with SIGKILL leaves no render running.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}

// residentBytes is the resident memory of process pid (VmRSS), read from
// /proc/PID/statm.
func residentBytes(pid int) (int64, error) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/statm")
	if err != nil {
		return 0, err
	}
	return parseStatm(data, int64(os.Getpagesize()))
}

// parseStatm reads the resident pages, the second field of
// /proc/PID/statm, as bytes.
func parseStatm(data []byte, pageSize int64) (int64, error) {
	f := bytes.Fields(data)
	if len(f) < 2 {
		return 0, fmt.Errorf("statm %q: want at least two fields", data)
	}
	pages, err := strconv.ParseInt(string(f[1]), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("statm %q: %w", data, err)
	}
	return pages * pageSize, nil
}
