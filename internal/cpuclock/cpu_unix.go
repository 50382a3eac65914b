//go:build unix

package cpuclock

import (
	"runtime"
	"time"

	"golang.org/x/sys/unix"
)

// ProcessCPU is the CPU time used so far by every thread of this process.
func ProcessCPU() (Usage, error) { return rusage(unix.RUSAGE_SELF) }

// rusage is getrusage(who) as a Usage: CPU time, context switches of both
// kinds, and page faults.
func rusage(who int) (Usage, error) {
	var ru unix.Rusage
	if err := unix.Getrusage(who, &ru); err != nil {
		return Usage{}, err
	}
	return Usage{
		User: time.Duration(ru.Utime.Nano()),
		Sys:  time.Duration(ru.Stime.Nano()),
		Ctx:  int64(ru.Nvcsw) + int64(ru.Nivcsw),
		Majf: int64(ru.Majflt),
		Minf: int64(ru.Minflt),
	}, nil
}

// MaxRSS is the peak resident set size of the process in bytes.
func MaxRSS() (int64, error) {
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_SELF, &ru); err != nil {
		return 0, err
	}
	if runtime.GOOS == "darwin" || runtime.GOOS == "ios" {
		return int64(ru.Maxrss), nil // bytes there, KiB elsewhere
	}
	return int64(ru.Maxrss) * 1024, nil
}
