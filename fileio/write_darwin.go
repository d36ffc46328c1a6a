package fileio

import (
	"errors"

	"golang.org/x/sys/unix"
)

// dirFlags open a directory to name files in it.
const dirFlags = unix.O_RDONLY | unix.O_DIRECTORY | unix.O_CLOEXEC

// exchange exchanges the directories a and b of dirfd in one rename
// (renameatx_np RENAME_SWAP; errNoExchange where the file system lacks it).
func exchange(dirfd int, a, b string) error {
	err := unix.RenameatxNp(dirfd, a, dirfd, b, unix.RENAME_SWAP)
	if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOTSUP) {
		return errNoExchange
	}
	return err
}
