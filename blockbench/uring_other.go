//go:build !linux

package blockbench

import "github.com/clydebench/clyde/result"

// uring is empty where io_uring does not exist.
type uring struct{}

func (*uring) close() {}

func uringAvailable() error { return result.ErrNotSupported }

func (w *worker) setupURing() error { return result.ErrNotSupported }

func (w *worker) runURing() { w.err = result.ErrNotSupported }
