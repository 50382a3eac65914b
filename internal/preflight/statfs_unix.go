//go:build linux || freebsd || darwin

package preflight

import (
	"fmt"

	"golang.org/x/sys/unix"

	"github.com/clydebench/clyde/internal/osio"
)

// Stat is the space of the filesystem holding path: a look before anything
// is created.
func Stat(path string) (FS, error) {
	var st unix.Statfs_t
	if err := unix.Statfs(path, &st); err != nil {
		return FS{}, fmt.Errorf("statfs %s: %w", path, err)
	}
	return fsOf(&st), nil
}

// StatDir is the space of the filesystem holding d, asked through its
// descriptor.
func StatDir(d osio.Dir) (FS, error) {
	var st unix.Statfs_t
	if err := unix.Fstatfs(d.Fd(), &st); err != nil {
		return FS{}, fmt.Errorf("statfs %s: %w", d.Path(), err)
	}
	return fsOf(&st), nil
}
