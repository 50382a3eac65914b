//go:build unix

package cpuclock

import (
	"time"

	"golang.org/x/sys/unix"
)

// ProcessCPU is the CPU time used so far by every thread of this process.
func ProcessCPU() (Usage, error) {
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_SELF, &ru); err != nil {
		return Usage{}, err
	}
	return Usage{
		User: time.Duration(ru.Utime.Nano()),
		Sys:  time.Duration(ru.Stime.Nano()),
	}, nil
}
