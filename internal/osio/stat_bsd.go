//go:build unix && !linux

package osio

import "golang.org/x/sys/unix"

// emptyPath makes statAt describe dirfd itself.
const emptyPath = -1

// statAt stats name in dirfd, or dirfd itself with emptyPath.
func statAt(dirfd int, name string, flags int) (Entry, error) {
	var st unix.Stat_t
	var err error
	if flags == emptyPath {
		err = unix.Fstat(dirfd, &st)
	} else {
		err = unix.Fstatat(dirfd, name, &st, flags)
	}
	if err != nil {
		return Entry{}, err
	}
	return entryOf(&st), nil
}
