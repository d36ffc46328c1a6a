package fileio

import (
	"errors"

	"golang.org/x/sys/unix"
)

// dirFlags open a directory only to name files in it: O_PATH needs no
// read permission, as the path walk of the system needs none.
const dirFlags = unix.O_PATH | unix.O_DIRECTORY | unix.O_CLOEXEC

// exchange exchanges the directories a and b of dirfd in one rename
// (renameat2 RENAME_EXCHANGE, Linux 3.15; ext4, XFS, Btrfs, tmpfs and
// overlayfs have it, NFS has not: errNoExchange).
func exchange(dirfd int, a, b string) error {
	err := unix.Renameat2(dirfd, a, dirfd, b, unix.RENAME_EXCHANGE)
	if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EOPNOTSUPP) {
		return errNoExchange
	}
	return err
}
