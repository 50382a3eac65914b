//go:build unix

package coord

import (
	"errors"

	"golang.org/x/sys/unix"
)

// addrInUse reports a listen that failed because the address is taken.
func addrInUse(err error) bool { return errors.Is(err, unix.EADDRINUSE) }
