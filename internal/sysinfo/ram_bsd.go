//go:build darwin || freebsd

package sysinfo

import (
	"fmt"
	"runtime"

	"golang.org/x/sys/unix"
)

// RAM reports physical memory. These platforms have no cgroups, so Limit
// stays 0 and Effective is the physical size.
func RAM() (RAMInfo, error) {
	name := "hw.physmem"
	if runtime.GOOS == "darwin" {
		name = "hw.memsize"
	}
	physical, err := unix.SysctlUint64(name)
	if err != nil {
		return RAMInfo{}, fmt.Errorf("read physical memory size (sysctl %s): %w", name, err)
	}
	return effectiveRAM(physical, 0), nil
}
