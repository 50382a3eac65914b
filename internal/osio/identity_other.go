//go:build !unix && !windows

package osio

import (
	"os"

	"github.com/clydebench/clyde/result"
)

func identityOf(*os.File) (Identity, error) { return Identity{}, result.ErrNotSupported }
