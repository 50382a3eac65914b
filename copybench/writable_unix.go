//go:build unix

package copybench

import "golang.org/x/sys/unix"

// checkWritable asks the kernel whether this process may create files in
// dir; it also catches read-only mounts (EROFS).
func checkWritable(dir string) error { return unix.Access(dir, unix.W_OK|unix.X_OK) }
