//go:build !unix && !windows

package runlock

import (
	"fmt"

	"github.com/clydebench/clyde/internal/osio"
	"github.com/clydebench/clyde/result"
)

func lockFd(_ int, _ osio.Identity, target string, _ func() []Holder) (*Lock, error) {
	return nil, fmt.Errorf("lock %s: %w", target, result.ErrNotSupported)
}
