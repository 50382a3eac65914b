//go:build windows

package sysinfo

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/windows"
)

// memoryStatusEx is MEMORYSTATUSEX, which x/sys/windows does not define.
type memoryStatusEx struct {
	Length               uint32
	MemoryLoad           uint32
	TotalPhys            uint64
	AvailPhys            uint64
	TotalPageFile        uint64
	AvailPageFile        uint64
	TotalVirtual         uint64
	AvailVirtual         uint64
	AvailExtendedVirtual uint64
}

var procGlobalMemoryStatusEx = windows.NewLazySystemDLL("kernel32.dll").NewProc("GlobalMemoryStatusEx")

// RAM reports physical memory. Job object memory limits are not read, so
// Limit stays 0 and Effective is the physical size.
func RAM() (RAMInfo, error) {
	ms := memoryStatusEx{Length: uint32(unsafe.Sizeof(memoryStatusEx{}))}
	r, _, err := procGlobalMemoryStatusEx.Call(uintptr(unsafe.Pointer(&ms)))
	if r == 0 {
		return RAMInfo{}, fmt.Errorf("read physical memory size (GlobalMemoryStatusEx): %w", err)
	}
	return effectiveRAM(ms.TotalPhys, 0), nil
}
