//go:build linux

package blockbench

import (
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// canPin says the platform pins a thread to CPUs (sched_setaffinity).
const canPin = true

// configuredCPUs is glibc's sysconf(_SC_NPROCESSORS_CONF), fio's
// cpus_configured(): the CPUs /sys/devices/system/cpu/possible lists
// (the highest one plus one), or those the process may run on.
func configuredCPUs() int {
	b, err := os.ReadFile("/sys/devices/system/cpu/possible")
	if err == nil {
		s := strings.TrimSpace(string(b))
		if i := strings.LastIndexAny(s, "-,"); i >= 0 {
			s = s[i+1:]
		}
		if n, err := strconv.Atoi(s); err == nil {
			return n + 1
		}
	}
	var set unix.CPUSet
	if unix.SchedGetaffinity(0, &set) == nil {
		return set.Count()
	}
	return 1
}

// pinThread pins the calling thread to cpus and returns what restores
// its affinity.
func pinThread(cpus []int) (func(), error) {
	var old, set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &old); err != nil {
		return nil, err
	}
	for _, c := range cpus {
		set.Set(c)
	}
	if err := unix.SchedSetaffinity(0, &set); err != nil {
		return nil, err
	}
	return func() { _ = unix.SchedSetaffinity(0, &old) }, nil
}

// threadCPUs are the CPUs the calling thread may run on, for the tests.
func threadCPUs() ([]int, error) {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		return nil, err
	}
	var out []int
	for c := range configuredCPUs() {
		if set.IsSet(c) {
			out = append(out, c)
		}
	}
	return out, nil
}
