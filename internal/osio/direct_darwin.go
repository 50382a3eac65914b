//go:build darwin

package osio

import "golang.org/x/sys/unix"

// macOS has no O_DIRECT; F_NOCACHE on the open descriptor turns the cache off
// for it, which is what fio's direct=1 does there.
func directOpenFlag() (int, error) { return 0, nil }

func afterDirectOpen(fd int) error {
	_, err := unix.FcntlInt(uintptr(fd), unix.F_NOCACHE, 1)
	return err
}

// DirectSupported says whether Direct opens can work here.
const DirectSupported = true
