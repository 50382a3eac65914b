//go:build windows

package runlock

import (
	"errors"
	"fmt"

	"golang.org/x/sys/windows"

	"github.com/clydebench/clyde/internal/osio"
	"github.com/clydebench/clyde/result"
)

// lockFd takes a named mutex keyed by the target's volume serial and file ID:
// Windows cannot lock a directory handle, and a kernel object is released
// when its holder dies, like flock. "Global\" lets runs in other sessions
// see it; without the privilege for that, "Local\" still guards the session.
func lockFd(_ int, id osio.Identity, target string, holders func() []Holder) (*Lock, error) {
	if id == (osio.Identity{}) {
		return nil, fmt.Errorf("lock %s: no file ID: %w", target, result.ErrNotSupported)
	}
	base := fmt.Sprintf("clyde-run-%x-%x", id.Dev, id.Ino)
	var h windows.Handle
	var err error
	for _, ns := range []string{`Global\`, `Local\`} {
		name, _ := windows.UTF16PtrFromString(ns + base)
		h, err = windows.CreateMutex(nil, true, name)
		if !errors.Is(err, windows.ERROR_ACCESS_DENIED) {
			break
		}
	}
	switch {
	case errors.Is(err, windows.ERROR_ALREADY_EXISTS):
		windows.CloseHandle(h)
		return nil, held(target, id, holders)
	case err != nil:
		return nil, fmt.Errorf("lock %s: %w", target, err)
	}
	return &Lock{release: func() error {
		_ = windows.ReleaseMutex(h)
		return windows.CloseHandle(h)
	}}, nil
}
