package cpuclock

import (
	_ "unsafe" // for go:linkname
)

// Nanotime is the runtime's monotonic clock in nanoseconds. The I/O loops read
// it once per operation: it is one vDSO call, where time.Now reads two clocks,
// which matters when an operation is a one-byte write(2).
//
//go:linkname Nanotime runtime.nanotime
func Nanotime() int64
