//go:build unix

package runlock

import (
	"errors"
	"fmt"

	"golang.org/x/sys/unix"

	"github.com/clydebench/clyde/internal/osio"
	"github.com/clydebench/clyde/result"
)

func lockFd(fd int, id osio.Identity, target string, holders func() []Holder) (*Lock, error) {
	err := unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB)
	switch {
	case err == nil:
		return &Lock{release: func() error { return unix.Flock(fd, unix.LOCK_UN) }}, nil
	case errors.Is(err, unix.EWOULDBLOCK):
		return nil, held(target, id, holders)
	case errors.Is(err, unix.ENOLCK), errors.Is(err, unix.EOPNOTSUPP), errors.Is(err, unix.EINVAL), errors.Is(err, unix.EBADF):
		// NFS without a lock manager, some FUSE filesystems.
		return nil, fmt.Errorf("lock %s: %v: %w", target, err, result.ErrNotSupported)
	}
	return nil, fmt.Errorf("lock %s: %w", target, err)
}
