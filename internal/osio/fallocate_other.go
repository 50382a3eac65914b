//go:build !linux

package osio

import (
	"fmt"
	"runtime"

	"github.com/clydebench/clyde/result"
)

// The modes of Fallocate; only Linux has the call.
const (
	AllocExtend   = 0
	AllocKeepSize = 1
	PunchHole     = 3
)

// CanFallocate says whether Fallocate can work here.
const CanFallocate = false

// Fallocate is Linux's fallocate(2), which this platform does not have.
func Fallocate(File, uint32, int64, int64) error {
	return fmt.Errorf("fallocate on %s: %w", runtime.GOOS, result.ErrNotSupported)
}
