//go:build !(linux || darwin || freebsd || netbsd || openbsd)

package ioengine

import "runtime"

// mmap: fio's mmap maps the file with mmap(2), which clyde calls on Linux,
// macOS and the BSDs only.
var mmapDriver = &Driver{
	Name:      "mmap",
	Available: mmapAvailable,
	Open:      func(Config) (Engine, error) { return nil, mmapAvailable() },
}

func init() { Register(mmapDriver) }

func mmapAvailable() error {
	return notSupported("ioengine mmap maps the file with mmap(2), which clyde runs on Linux, macOS and the BSDs; on %s", runtime.GOOS)
}
