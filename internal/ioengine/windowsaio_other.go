//go:build !windows

package ioengine

import "runtime"

// windowsaio: overlapped I/O with completion ports is Windows'.
var windowsaio = &Driver{
	Name:      "windowsaio",
	Flags:     FlagQueues | FlagReapsAll | FlagOverlapped,
	Available: windowsAIOAvailable,
	Open:      func(Config) (Engine, error) { return nil, windowsAIOAvailable() },
}

func init() { Register(windowsaio) }

func windowsAIOAvailable() error { return notSupported("windowsaio on %s", runtime.GOOS) }
