//go:build freebsd || darwin

package blockbench

import (
	"fmt"

	"golang.org/x/sys/unix"

	"github.com/clydebench/clyde/internal/osio"
)

func spaceOf(st *unix.Statfs_t) fsSpace {
	unit := uint64(st.Bsize)
	return fsSpace{total: uint64(st.Blocks) * unit, free: uint64(st.Bfree) * unit, avail: uint64(max(0, int64(st.Bavail))) * unit}
}

// dirSpace is the space of the filesystem holding d, asked through its
// descriptor.
func dirSpace(d osio.Dir) (fsSpace, error) {
	var st unix.Statfs_t
	if err := unix.Fstatfs(d.Fd(), &st); err != nil {
		return fsSpace{}, fmt.Errorf("statfs %s: %w", d.Path(), err)
	}
	return spaceOf(&st), nil
}

// pathSpace is the same by path: a look before anything is created.
func pathSpace(path string) (fsSpace, error) {
	var st unix.Statfs_t
	if err := unix.Statfs(path, &st); err != nil {
		return fsSpace{}, fmt.Errorf("statfs %s: %w", path, err)
	}
	return spaceOf(&st), nil
}

// cachedOnly names a memory filesystem (FreeBSD's tmpfs) holding path.
func cachedOnly(path string) (string, error) {
	var st unix.Statfs_t
	if err := unix.Statfs(path, &st); err != nil {
		return "", fmt.Errorf("statfs %s: %w", path, err)
	}
	if name := unix.ByteSliceToString(fstypename(&st)); name == "tmpfs" {
		return "tmpfs, which keeps its files in memory", nil
	}
	return "", nil
}
