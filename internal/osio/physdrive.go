package osio

import (
	"strconv"
	"strings"
)

// PhysicalDrive is the disk number of a Windows raw-disk path
// (\\.\PhysicalDrive2 or \\?\PhysicalDrive2, any case), and whether path is
// one. It is a pure function so every platform's tests check it.
func PhysicalDrive(path string) (int, bool) {
	for _, prefix := range []string{`\\.\`, `\\?\`} {
		if len(path) < len(prefix) || path[:len(prefix)] != prefix {
			continue
		}
		rest := path[len(prefix):]
		const name = "physicaldrive"
		if len(rest) <= len(name) || !strings.EqualFold(rest[:len(name)], name) {
			return 0, false
		}
		digits := rest[len(name):]
		if len(digits) > 3 || (len(digits) > 1 && digits[0] == '0') || strings.Trim(digits, "0123456789") != "" {
			return 0, false
		}
		n, err := strconv.Atoi(digits)
		return n, err == nil
	}
	return 0, false
}

// IsPhysicalDrive says whether path names a Windows raw disk.
func IsPhysicalDrive(path string) bool {
	_, ok := PhysicalDrive(path)
	return ok
}
