//go:build unix

package sysinfo

import (
	"os"

	"golang.org/x/sys/unix"
)

// IsTerminal reports whether f is a terminal, so progress lines and colour
// go to people and never into files or pipes being parsed.
func IsTerminal(f *os.File) bool {
	if f == nil {
		return false
	}
	_, err := unix.IoctlGetTermios(int(f.Fd()), ioctlReadTermios)
	return err == nil
}
