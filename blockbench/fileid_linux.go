//go:build linux

package blockbench

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// identify stats an open descriptor. statx adds the birth time, where the
// filesystem keeps one (ext4, xfs, btrfs, tmpfs); kernels before 4.11 fall
// back to fstat.
func identify(f *os.File) (entryInfo, error) {
	return statxInfo(int(f.Fd()), "", unix.AT_EMPTY_PATH)
}

// statAt stats name in the directory dirfd without following a symlink.
func statAt(dirfd int, name string) (entryInfo, error) {
	return statxInfo(dirfd, name, unix.AT_SYMLINK_NOFOLLOW)
}

func statxInfo(dirfd int, name string, flags int) (entryInfo, error) {
	var sx unix.Statx_t
	err := unix.Statx(dirfd, name, flags|unix.AT_STATX_SYNC_AS_STAT,
		unix.STATX_TYPE|unix.STATX_INO|unix.STATX_SIZE|unix.STATX_BTIME, &sx)
	if errors.Is(err, unix.ENOSYS) {
		var st unix.Stat_t
		if err := unix.Fstatat(dirfd, name, &st, flags); err != nil {
			return entryInfo{}, err
		}
		return entryInfo{id: fileID{Dev: st.Dev, Ino: st.Ino}, kind: kindOf(st.Mode), size: st.Size}, nil
	}
	if err != nil {
		return entryInfo{}, err
	}
	e := entryInfo{id: fileID{Dev: unix.Mkdev(sx.Dev_major, sx.Dev_minor), Ino: sx.Ino}, kind: kindOf(uint32(sx.Mode)), size: int64(sx.Size)}
	if sx.Mask&unix.STATX_BTIME != 0 {
		e.id.Birth = sx.Btime.Sec*1e9 + int64(sx.Btime.Nsec)
	}
	return e, nil
}
