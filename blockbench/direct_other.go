//go:build !linux

package blockbench

import (
	"fmt"

	"github.com/clydebench/clyde/result"
)

// directFlag: O_DIRECT is implemented for Linux only (macOS would need
// F_NOCACHE, Windows FILE_FLAG_NO_BUFFERING); --direct fails rather than
// silently running buffered.
func directFlag() (int, error) { return 0, fmt.Errorf("--direct: %w", result.ErrNotSupported) }
