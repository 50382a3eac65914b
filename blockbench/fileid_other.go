//go:build !unix && !windows

package blockbench

import (
	"os"

	"github.com/clydebench/clyde/result"
)

// identify: this platform gives no file identity clyde knows how to read,
// so clyde cannot prove a file is the one it created and creates none.
func identify(*os.File) (entryInfo, error) { return entryInfo{}, result.ErrNotSupported }
