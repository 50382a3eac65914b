//go:build !unix && !windows

package runlock

import (
	"os"

	"github.com/clydebench/clyde/result"
)

func tryLock(*os.File) error { return result.ErrNotSupported }

func unlock(*os.File) error { return nil }
