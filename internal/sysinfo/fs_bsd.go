//go:build darwin || freebsd

package sysinfo

import (
	"fmt"
	"path/filepath"

	"golang.org/x/sys/unix"

	"github.com/clydebench/clyde/result"
)

// FilesystemOf describes the filesystem holding path as statfs(2) reports
// it, so results from different filesystems are never compared unknowingly.
// Device model and serial are not looked up on this platform.
func FilesystemOf(path string) (result.Filesystem, error) {
	fs := result.Filesystem{Path: path}
	abs, err := filepath.Abs(path)
	if err != nil {
		return fs, fmt.Errorf("resolve %s: %w", path, err)
	}
	if resolved, err := filepath.EvalSymlinks(abs); err == nil {
		abs = resolved
	}
	fs.Path = abs
	var st unix.Statfs_t
	if err := unix.Statfs(abs, &st); err != nil {
		return fs, fmt.Errorf("statfs %s: %w", abs, err)
	}
	fs.Type = unix.ByteSliceToString(st.Fstypename[:])
	fs.MountPoint = unix.ByteSliceToString(st.Mntonname[:])
	fs.Source = unix.ByteSliceToString(st.Mntfromname[:])
	fs.MountOptions = mountFlags(uint64(st.Flags))
	return fs, nil
}

// mountFlags spells the statfs flags that change benchmark results the way
// mount(8) does.
func mountFlags(flags uint64) string {
	return spellFlags(flags, unix.MNT_RDONLY, []flagName{
		{unix.MNT_SYNCHRONOUS, "sync"},
		{unix.MNT_NOATIME, "noatime"},
		{unix.MNT_NOSUID, "nosuid"},
		{unix.MNT_NOEXEC, "noexec"},
	})
}
