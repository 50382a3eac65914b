//go:build !unix

package rundir

import "os"

// processAlive: FindProcess opens a handle only for a live process on Windows.
func processAlive(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	_ = p.Release()
	return true
}
