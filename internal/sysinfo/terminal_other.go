//go:build !unix && !windows

package sysinfo

import "os"

// IsTerminal is always false here, so output stays plain.
func IsTerminal(f *os.File) bool { return false }
