//go:build unix && !linux

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

// BootID and StartTicks are read on Linux only; elsewhere a reused
// pid keeps a leftover marker looking alive until that process ends.
func BootID() string        { return "" }
func StartTicks(int) uint64 { return 0 }
