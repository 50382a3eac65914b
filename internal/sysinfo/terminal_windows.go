//go:build windows

package sysinfo

import (
	"os"

	"golang.org/x/sys/windows"
)

// IsTerminal reports whether f is a console, so progress lines and colour
// go to people and never into files or pipes being parsed.
func IsTerminal(f *os.File) bool {
	if f == nil {
		return false
	}
	var mode uint32
	return windows.GetConsoleMode(windows.Handle(f.Fd()), &mode) == nil
}
