//go:build linux

package osio

import "golang.org/x/sys/unix"

// The modes of Fallocate, as fio 3.33's falloc engine passes them: 0
// allocates and extends the file (a write), AllocKeepSize allocates
// without changing its size (a read), PunchHole frees the range (a trim).
const (
	AllocExtend   = 0
	AllocKeepSize = unix.FALLOC_FL_KEEP_SIZE
	PunchHole     = unix.FALLOC_FL_PUNCH_HOLE | unix.FALLOC_FL_KEEP_SIZE
)

// CanFallocate says whether Fallocate can work here.
const CanFallocate = true

// Fallocate is fallocate(2) on n bytes at off of f's file.
func Fallocate(f File, mode uint32, off, n int64) error {
	return unix.Fallocate(f.sysfd(), mode, off, n)
}
