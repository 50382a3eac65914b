//go:build linux

package sysinfo

import (
	"bytes"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// RAM reports physical memory and the cgroup memory limit of this process,
// so a containerised run sizes its files to what it may really use.
func RAM() (RAMInfo, error) {
	var si unix.Sysinfo_t
	if err := unix.Sysinfo(&si); err != nil {
		return RAMInfo{}, fmt.Errorf("read physical memory size: %w", err)
	}
	physical := uint64(si.Totalram) * uint64(si.Unit)
	return effectiveRAM(physical, ownCgroupMemoryLimit()), nil
}

// ownCgroupMemoryLimit finds this process's memory limit; anything it cannot
// read counts as no limit, since most machines have none.
func ownCgroupMemoryLimit() uint64 {
	cg, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return 0
	}
	mi, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return 0
	}
	mounts, err := parseMountInfo(bytes.NewReader(mi))
	if err != nil {
		return 0
	}
	return cgroupMemoryLimit(parseProcCgroup(bytes.NewReader(cg)), mounts, os.ReadFile)
}
