//go:build !unix && !windows

package cpuclock

import "github.com/clydebench/clyde/internal/platform"

// ProcessCPU is not available here; %CP is reported as unknown.
func ProcessCPU() (Usage, error) { return Usage{}, platform.ErrNotSupported }

// MaxRSS is not available here.
func MaxRSS() (int64, error) { return 0, platform.ErrNotSupported }
