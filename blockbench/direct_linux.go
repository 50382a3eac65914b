//go:build linux

package blockbench

import "golang.org/x/sys/unix"

// directFlag is the open flag that bypasses the page cache.
func directFlag() (int, error) { return unix.O_DIRECT, nil }
