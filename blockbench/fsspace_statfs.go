//go:build linux || freebsd || darwin

package blockbench

import (
	"fmt"

	"golang.org/x/sys/unix"

	"github.com/clydebench/clyde/internal/osio"
)

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
