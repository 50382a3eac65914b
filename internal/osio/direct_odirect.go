//go:build linux || freebsd

package osio

import "golang.org/x/sys/unix"

// directOpenFlag is O_DIRECT: the kernel moves data between the device and
// the buffer without the page cache.
func directOpenFlag() (int, error) { return unix.O_DIRECT, nil }

func afterDirectOpen(int) error { return nil }

// DirectSupported says whether Direct opens can work here.
const DirectSupported = true
