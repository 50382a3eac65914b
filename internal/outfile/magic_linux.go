//go:build linux

package outfile

import (
	"path/filepath"

	"golang.org/x/sys/unix"
)

// isMagicLink reports whether the symlink p lives in procfs, where links
// such as /proc/PID/fd/N name open files ("pipe:[123]") rather than paths.
func isMagicLink(p string) bool {
	var st unix.Statfs_t
	return unix.Statfs(filepath.Dir(p), &st) == nil && st.Type == unix.PROC_SUPER_MAGIC
}
