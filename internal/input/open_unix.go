//go:build unix

package input

import (
	"golang.org/x/sys/unix"
	"os"
)

// openNonBlocking opens path for reading without waiting for a FIFO's
// writer; regular files read the same either way.
func openNonBlocking(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|unix.O_NONBLOCK, 0)
}
