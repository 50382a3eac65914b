//go:build !linux

package blockbench

import "github.com/clydebench/clyde/internal/platform"

// uring is empty where io_uring does not exist.
type uring struct{}

func (*uring) close() {}

func uringAvailable() error { return platform.ErrNotSupported }

func (w *worker) setupURing() error { return platform.ErrNotSupported }

func (w *worker) runURing() { w.err = platform.ErrNotSupported }
