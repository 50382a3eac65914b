//go:build !windows

package blockbench

import (
	"fmt"
	"runtime"

	"github.com/clydebench/clyde/result"
)

// windowsAIOEngine: overlapped I/O with completion ports is Windows'.
type windowsAIOEngine struct{}

func (windowsAIOEngine) name() Engine { return EngineWindowsAIO }
func (windowsAIOEngine) queues() bool { return true }
func (windowsAIOEngine) available() error {
	return fmt.Errorf("windowsaio on %s: %w", runtime.GOOS, result.ErrNotSupported)
}
func (e windowsAIOEngine) prepare(*worker) (issuer, error) { return nil, e.available() }
