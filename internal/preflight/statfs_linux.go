//go:build linux

package preflight

import "golang.org/x/sys/unix"

func fsOf(st *unix.Statfs_t) FS {
	// Block counts are in fragment-size units; f_frsize is 0 only on
	// kernels too old to report it, where f_bsize is the unit.
	unit := uint64(st.Frsize)
	if unit == 0 {
		unit = uint64(st.Bsize)
	}
	return FS{
		TotalBytes:  st.Blocks * unit,
		FreeBytes:   st.Bfree * unit,
		AvailBytes:  st.Bavail * unit,
		FreeInodes:  st.Ffree,
		TotalInodes: st.Files,
		InodesKnown: st.Files != 0,
	}
}
