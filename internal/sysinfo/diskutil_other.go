//go:build !linux

package sysinfo

import "github.com/clydebench/clyde/result"

// DiskTarget is an open target whose disk DiskStats would look up.
type DiskTarget struct {
	Fd     int
	Device bool
}

// DiskSnapshot is empty where there is no /sys/block: disk_util is left out
// of the result, as fio leaves it out there.
type DiskSnapshot struct{}

// DiskStats has no disks to read here.
func DiskStats([]DiskTarget) *DiskSnapshot { return &DiskSnapshot{} }

// Util is nothing here.
func (*DiskSnapshot) Util() []result.BlockDiskUtil { return nil }
