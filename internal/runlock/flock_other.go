//go:build !unix && !windows

package runlock

import (
	"os"

	"github.com/clydebench/clyde/internal/platform"
)

func tryLock(*os.File) error { return platform.ErrNotSupported }

func unlock(*os.File) error { return nil }
