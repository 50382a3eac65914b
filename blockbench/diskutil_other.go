//go:build !linux

package blockbench

import "github.com/clydebench/clyde/result"

// diskSnapshot is empty where there is no /sys/block: disk_util is left out
// of the result, as fio leaves it out there.
type diskSnapshot struct{}

func diskStatsBefore([]*target) *diskSnapshot { return &diskSnapshot{} }

func (*diskSnapshot) after() []result.BlockDiskUtil { return nil }
