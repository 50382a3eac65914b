//go:build unix && !linux

package fsbench

import "golang.org/x/sys/unix"

// syncAll is bonnie++'s sync(): this platform has no per-filesystem syncfs.
func syncAll() error {
	return unix.Sync()
}
