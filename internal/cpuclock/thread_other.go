//go:build !linux

package cpuclock

import "github.com/clydebench/clyde/result"

// ThreadCPU is not available here: getrusage has no RUSAGE_THREAD outside
// Linux. Callers fall back to ProcessCPU and record that they did.
func ThreadCPU() (Usage, error) { return Usage{}, result.ErrNotSupported }

// ThreadID is 0 here: there is no per-thread reading to match.
func ThreadID() int { return 0 }
