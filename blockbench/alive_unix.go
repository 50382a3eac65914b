//go:build unix && !linux

package blockbench

import (
	"errors"

	"golang.org/x/sys/unix"
)

// processAlive reports whether pid exists (signal 0 probes without sending).
func processAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := unix.Kill(pid, 0)
	return err == nil || errors.Is(err, unix.EPERM)
}

// bootID and processStartTicks are read on Linux only; elsewhere a reused
// pid keeps a leftover marker looking alive until that process ends.
func bootID() string               { return "" }
func processStartTicks(int) uint64 { return 0 }
