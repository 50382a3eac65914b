//go:build linux

package osio

import (
	"errors"

	"golang.org/x/sys/unix"
)

// emptyPath makes statAt describe dirfd itself.
const emptyPath = unix.AT_EMPTY_PATH

// statAt stats name in dirfd (with emptyPath, dirfd itself). statx adds the
// birth time where the filesystem keeps one (ext4, xfs, btrfs, tmpfs);
// kernels before 4.11 fall back to fstatat.
func statAt(dirfd int, name string, flags int) (Entry, error) {
	var sx unix.Statx_t
	err := unix.Statx(dirfd, name, flags|unix.AT_STATX_SYNC_AS_STAT,
		unix.STATX_TYPE|unix.STATX_MODE|unix.STATX_UID|unix.STATX_NLINK|unix.STATX_INO|unix.STATX_SIZE|unix.STATX_BTIME, &sx)
	if errors.Is(err, unix.ENOSYS) {
		var st unix.Stat_t
		if err := unix.Fstatat(dirfd, name, &st, flags); err != nil {
			return Entry{}, err
		}
		return entryOf(&st), nil
	}
	if err != nil {
		return Entry{}, err
	}
	mode := uint32(sx.Mode)
	e := Entry{
		ID:    Identity{Dev: unix.Mkdev(sx.Dev_major, sx.Dev_minor), Ino: sx.Ino},
		Dir:   mode&unix.S_IFMT == unix.S_IFDIR,
		Reg:   mode&unix.S_IFMT == unix.S_IFREG,
		Link:  mode&unix.S_IFMT == unix.S_IFLNK,
		Dev:   mode&unix.S_IFMT == unix.S_IFBLK,
		Size:  int64(sx.Size),
		Mode:  mode & 0o7777,
		UID:   int(sx.Uid),
		Nlink: uint64(sx.Nlink),
	}
	if sx.Mask&unix.STATX_BTIME != 0 {
		e.ID.Birth = sx.Btime.Sec*1e9 + int64(sx.Btime.Nsec)
	}
	return e, nil
}
