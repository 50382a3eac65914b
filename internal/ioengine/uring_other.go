//go:build !linux

package ioengine

import "runtime"

// io_uring is Linux's.
var uringDriver = &Driver{
	Name:      "io_uring",
	Flags:     FlagQueues | FlagCommits | FlagReapsAllUnderAuto,
	Available: uringAvailable,
	Open:      func(Config) (Engine, error) { return nil, uringAvailable() },
}

func init() { Register(uringDriver) }

func uringAvailable() error { return notSupported("io_uring on %s", runtime.GOOS) }
