//go:build !linux

package blockbench

import (
	"fmt"
	"runtime"

	"github.com/clydebench/clyde/result"
)

// uringEngine: io_uring is Linux's.
type uringEngine struct{}

func (uringEngine) name() Engine { return EngineIOUring }
func (uringEngine) queues() bool { return true }
func (uringEngine) available() error {
	return fmt.Errorf("io_uring on %s: %w", runtime.GOOS, result.ErrNotSupported)
}
func (e uringEngine) prepare(*worker) (issuer, error) { return nil, e.available() }

func uringAvailable() error { return uringEngine{}.available() }
