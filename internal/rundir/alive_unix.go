//go:build unix

package rundir

import (
	"errors"

	"golang.org/x/sys/unix"
)

// processAlive reports whether pid still runs (signal 0 probes without sending).
func processAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := unix.Kill(pid, 0)
	return err == nil || errors.Is(err, unix.EPERM)
}
