//go:build !unix && !windows

package sysinfo

import "runtime"

// Kernel is only the OS name here; the platform offers no uname.
func Kernel() string { return runtime.GOOS }
