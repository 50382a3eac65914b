//go:build darwin || freebsd

package preflight

import "golang.org/x/sys/unix"

func fsOf(st *unix.Statfs_t) FS {
	unit := uint64(st.Bsize)
	// FreeBSD's f_bavail and f_ffree go negative when root has eaten into
	// the reserve; for the caller that is no space at all.
	avail := max(int64(st.Bavail), 0)
	ffree := max(int64(st.Ffree), 0)
	return FS{
		TotalBytes:  uint64(st.Blocks) * unit,
		FreeBytes:   uint64(st.Bfree) * unit,
		AvailBytes:  uint64(avail) * unit,
		FreeInodes:  uint64(ffree),
		TotalInodes: uint64(st.Files),
		InodesKnown: st.Files != 0,
	}
}
