//go:build windows

package cpuclock

import (
	"time"

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

// MaxRSS is not read on Windows yet; results leave it out.
func MaxRSS() (int64, error) { return 0, result.ErrNotSupported }
