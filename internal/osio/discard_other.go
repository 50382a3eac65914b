//go:build !linux

package osio

import (
	"fmt"
	"runtime"

	"github.com/clydebench/clyde/result"
)

// CanDiscard says whether Discard can work here.
const CanDiscard = false

// Discard is BLKDISCARD, the one trim call clyde issues, which only Linux
// has.
func Discard(File, int64, int64) error {
	return fmt.Errorf("trim on %s: %w", runtime.GOOS, result.ErrNotSupported)
}
