//go:build !linux

package limits

import "github.com/clydebench/clyde/internal/sysinfo"

// read knows only the memory here; the other limits are Linux's to check.
func read() (Limits, error) {
	var l Limits
	if ram, err := sysinfo.RAM(); err == nil {
		l.Memory = ram.Effective
	}
	return l, nil
}
