//go:build !linux

package osio

import (
	"fmt"
	"runtime"
)

// DropRange is not available here: only Linux reads through loop devices.
func DropRange(File, int64, int64) (int64, error) {
	return -1, fmt.Errorf("dropping a range of the page cache is not supported on %s", runtime.GOOS)
}

// DropRangeMethod is what a result says of DropRange.
const DropRangeMethod = ""

// ResidentRange is not available here.
func ResidentRange(File, int64, int64) (int64, error) {
	return -1, fmt.Errorf("counting resident pages is not supported on %s", runtime.GOOS)
}
