//go:build windows

package cpuclock

import (
	"time"
	"unsafe"

	"github.com/clydebench/clyde/result"

	"golang.org/x/sys/windows"
)

// ProcessCPU is the CPU time used so far by every thread of this process.
func ProcessCPU() (Usage, error) {
	var creation, exit, kernel, user windows.Filetime
	h := windows.CurrentProcess()
	if err := windows.GetProcessTimes(h, &creation, &exit, &kernel, &user); err != nil {
		return Usage{}, err
	}
	// Filetime counts 100 ns intervals.
	toDur := func(ft windows.Filetime) time.Duration {
		return time.Duration((int64(ft.HighDateTime)<<32 | int64(ft.LowDateTime)) * 100)
	}
	return Usage{User: toDur(user), Sys: toDur(kernel)}, nil
}

// processMemoryCounters is PROCESS_MEMORY_COUNTERS.
type processMemoryCounters struct {
	cb                         uint32
	pageFaultCount             uint32
	peakWorkingSetSize         uintptr
	workingSetSize             uintptr
	quotaPeakPagedPoolUsage    uintptr
	quotaPagedPoolUsage        uintptr
	quotaPeakNonPagedPoolUsage uintptr
	quotaNonPagedPoolUsage     uintptr
	pagefileUsage              uintptr
	peakPagefileUsage          uintptr
}

var procK32GetProcessMemoryInfo = windows.NewLazySystemDLL("kernel32.dll").NewProc("K32GetProcessMemoryInfo")

// MaxRSS is the process's peak working set in bytes: the memory that was
// resident at once, Windows' counterpart of getrusage's ru_maxrss.
func MaxRSS() (int64, error) {
	if err := procK32GetProcessMemoryInfo.Find(); err != nil {
		return 0, result.ErrNotSupported
	}
	pmc := processMemoryCounters{cb: uint32(unsafe.Sizeof(processMemoryCounters{}))}
	r, _, err := procK32GetProcessMemoryInfo.Call(uintptr(windows.CurrentProcess()), uintptr(unsafe.Pointer(&pmc)), uintptr(pmc.cb))
	if r == 0 {
		return 0, err
	}
	return int64(pmc.peakWorkingSetSize), nil
}
