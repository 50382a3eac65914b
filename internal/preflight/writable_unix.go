//go:build unix

package preflight

import "golang.org/x/sys/unix"

// writable asks the kernel whether this process may create files in dir; it
// also catches read-only mounts (EROFS).
func writable(dir string) error { return unix.Access(dir, unix.W_OK|unix.X_OK) }
