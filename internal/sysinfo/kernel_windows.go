//go:build windows

package sysinfo

import (
	"fmt"

	"golang.org/x/sys/windows"
)

// Kernel is the Windows version and build ("Windows 10.0.22631"), since I/O
// results change with the kernel. RtlGetVersion is used because
// GetVersionEx lies to programs without a compatibility manifest.
func Kernel() string {
	v := windows.RtlGetVersion()
	return fmt.Sprintf("Windows %d.%d.%d", v.MajorVersion, v.MinorVersion, v.BuildNumber)
}
