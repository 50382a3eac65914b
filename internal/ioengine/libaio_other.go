//go:build !linux

package ioengine

import "runtime"

// libaio: Linux native AIO is Linux's.
var libaio = &Driver{
	Name:      "libaio",
	Flags:     FlagQueues | FlagCommits,
	Available: libaioAvailable,
	Open:      func(Config) (Engine, error) { return nil, libaioAvailable() },
}

func init() { Register(libaio) }

func libaioAvailable() error { return notSupported("libaio is Linux's; on %s", runtime.GOOS) }
