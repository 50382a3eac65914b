//go:build !(linux || darwin || freebsd || netbsd || openbsd)

package blockbench

import (
	"fmt"
	"runtime"

	"github.com/clydebench/clyde/result"
)

// mmapEngine: fio's mmap maps the file with mmap(2), which clyde calls on
// Linux, macOS and the BSDs only.
type mmapEngine struct{}

func (mmapEngine) name() Engine { return EngineMmap }
func (mmapEngine) queues() bool { return false }
func (mmapEngine) available() error {
	return fmt.Errorf("ioengine mmap maps the file with mmap(2), which clyde runs on Linux, macOS and the BSDs; on %s: %w", runtime.GOOS, result.ErrNotSupported)
}
func (e mmapEngine) prepare(*worker) (issuer, error) { return nil, e.available() }
