//go:build windows

package coord

import (
	"errors"

	"golang.org/x/sys/windows"
)

// addrInUse reports a listen that failed because the address is taken.
func addrInUse(err error) bool { return errors.Is(err, windows.WSAEADDRINUSE) }
