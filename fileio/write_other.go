//go:build unix && !linux && !darwin

package fileio

import "golang.org/x/sys/unix"

// dirFlags open a directory to name files in it.
const dirFlags = unix.O_RDONLY | unix.O_DIRECTORY | unix.O_CLOEXEC

// exchange is not available: errNoExchange.
func exchange(int, string, string) error { return errNoExchange }
