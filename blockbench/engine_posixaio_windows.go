package blockbench

import (
	"fmt"

	"github.com/clydebench/clyde/result"
)

// posixAIOEngine: POSIX AIO is not Windows'; windowsaio is its queueing
// engine.
type posixAIOEngine struct{}

func (posixAIOEngine) name() Engine { return EnginePosixAIO }
func (posixAIOEngine) queues() bool { return true }
func (posixAIOEngine) available() error {
	return fmt.Errorf("ioengine posixaio is POSIX AIO, which Windows does not have (give windowsaio): %w", result.ErrNotSupported)
}
func (e posixAIOEngine) prepare(*worker) (issuer, error) { return nil, e.available() }
