//go:build unix

package proc

import (
	"errors"

	"golang.org/x/sys/unix"
)

// Exists reports whether pid exists (signal 0 probes without sending).
func Exists(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := unix.Kill(pid, 0)
	return err == nil || errors.Is(err, unix.EPERM)
}
