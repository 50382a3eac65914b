//go:build !unix && !windows

package cpuclock

import "github.com/clydebench/clyde/result"

// ProcessCPU is not available here; %CP is reported as unknown.
func ProcessCPU() (Usage, error) { return Usage{}, result.ErrNotSupported }

// MaxRSS is not available here.
func MaxRSS() (int64, error) { return 0, result.ErrNotSupported }
