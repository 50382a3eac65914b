//go:build windows

package proc

import "golang.org/x/sys/windows"

// Exists says whether a process with this pid runs (OpenProcess succeeds
// only for a live one; access denied means it runs as someone else).
func Exists(pid int) bool {
	if pid <= 0 {
		return false
	}
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return err == windows.ERROR_ACCESS_DENIED
	}
	windows.CloseHandle(h)
	return true
}

// BootID is not read on Windows: a pid from before a reboot is told apart
// by its start time.
func BootID() string { return "" }

// StartTicks is the process's creation time in 100 ns units since 1601
// (GetProcessTimes), 0 when it cannot be read: Windows hands pids out again,
// and under Wine every process of a fresh wineserver gets the same few, so
// a marker's pid alone does not name its run.
func StartTicks(pid int) uint64 {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return 0
	}
	defer windows.CloseHandle(h)
	var creation, exit, kernel, user windows.Filetime
	if err := windows.GetProcessTimes(h, &creation, &exit, &kernel, &user); err != nil {
		return 0
	}
	return uint64(creation.HighDateTime)<<32 | uint64(creation.LowDateTime)
}
