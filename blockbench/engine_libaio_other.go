//go:build !linux

package blockbench

import (
	"fmt"
	"runtime"

	"github.com/clydebench/clyde/result"
)

// libaioEngine: Linux native AIO is Linux's.
type libaioEngine struct{}

func (libaioEngine) name() Engine { return EngineLibaio }
func (libaioEngine) queues() bool { return true }
func (libaioEngine) available() error {
	return fmt.Errorf("libaio is Linux's; on %s: %w", runtime.GOOS, result.ErrNotSupported)
}
func (e libaioEngine) prepare(*worker) (issuer, error) { return nil, e.available() }
