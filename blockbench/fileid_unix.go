//go:build unix && !linux

package blockbench

import (
	"os"

	"golang.org/x/sys/unix"
)

// identify stats an open descriptor.
func identify(f *os.File) (entryInfo, error) {
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil {
		return entryInfo{}, err
	}
	return fromStat(&st), nil
}

// statAt stats name in the directory dirfd without following a symlink.
func statAt(dirfd int, name string) (entryInfo, error) {
	var st unix.Stat_t
	if err := unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return entryInfo{}, err
	}
	return fromStat(&st), nil
}

func fromStat(st *unix.Stat_t) entryInfo {
	return entryInfo{id: fileID{Dev: uint64(st.Dev), Ino: uint64(st.Ino)}, kind: kindOf(uint32(st.Mode)), size: st.Size}
}
