//go:build linux

package admit

import (
	"errors"

	"golang.org/x/sys/unix"
)

// held is what the kernel says, by its leases, of who else has a file
// open: any open file anywhere counts, a process's in any namespace and
// the kernel's own (a file-backed mount, a loop device, swap, an NFS or
// SMB server), with or without a descriptor left (a map, an io_uring's
// registered file).
type held int

const (
	heldUnknown held = iota // the kernel gives no lease here (not root or the owner, NFS, leases off)
	heldNone                // nothing else has it open
	heldReaders             // open, for reading only
	heldWriters             // open for writing (or leased) by something else
)

// probeLease asks the kernel about the file clyde has open read-only as
// fd, clyde's only descriptor on it. A read lease is refused while the
// file is open for writing anywhere; a write lease while it is open at
// all. Each lease is released at once; an open by someone else in between
// waits that long for it (the lease's break).
func probeLease(fd int) held {
	if err := setLease(fd, unix.F_RDLCK); err != nil {
		if errors.Is(err, unix.EAGAIN) {
			return heldWriters
		}
		return heldUnknown
	}
	_ = setLease(fd, unix.F_UNLCK)
	if err := setLease(fd, unix.F_WRLCK); err != nil {
		if errors.Is(err, unix.EAGAIN) {
			return heldReaders
		}
		return heldUnknown
	}
	_ = setLease(fd, unix.F_UNLCK)
	return heldNone
}

func setLease(fd, kind int) error {
	_, err := unix.FcntlInt(uintptr(fd), unix.F_SETLEASE, kind)
	return err
}
