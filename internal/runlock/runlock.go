// Package runlock stops two clyde runs on the same directory or device from
// overlapping: two benchmarks on one disk measure each other. The lock is
// taken on the target itself, an advisory lock on the open directory or
// device (flock on Unix; a named mutex keyed by the volume and file ID on
// Windows), so nothing is created for it, nothing lives in a shared temp
// directory, and the kernel releases it when the holder dies, however it
// dies. The second run names the holder from what the holder keeps: the
// marker in its private run directory, or on Linux /proc/locks.
package runlock

import (
	"fmt"
	"time"

	"github.com/clydebench/clyde/internal/osio"
)

// Holder is who holds a lock.
type Holder struct {
	PID     int
	Host    string
	Started time.Time
	Command string
}

// HeldError is returned when another process holds the lock.
type HeldError struct {
	Target string
	Holder Holder // zero when the holder could not be found
}

func (e *HeldError) Error() string {
	h := e.Holder
	switch {
	case h.PID == 0:
		return fmt.Sprintf("another clyde run holds the lock on %s", e.Target)
	case h.Started.IsZero():
		return fmt.Sprintf("another clyde run is using %s: pid %d%s", e.Target, h.PID, commandSuffix(h.Command))
	}
	return fmt.Sprintf("another clyde run is using %s: pid %d on %s, started %s%s",
		e.Target, h.PID, h.Host, h.Started.Local().Format("2006-01-02 15:04:05"), commandSuffix(h.Command))
}

func commandSuffix(cmd string) string {
	if cmd == "" {
		return ""
	}
	if len(cmd) > 80 {
		cmd = cmd[:77] + "..."
	}
	return " (" + cmd + ")"
}

// Lock is a held lock; Release gives it back.
type Lock struct {
	release func() error
}

// Release gives the lock back. It does not close the descriptor the lock
// was taken on; its owner does.
func (l *Lock) Release() error {
	if l == nil || l.release == nil {
		return nil
	}
	err := l.release()
	l.release = nil
	return err
}

// Dir takes the lock on an open directory without waiting (clyde fs: the -d
// directory). A held lock returns *HeldError at once, naming the first
// holder that holders finds (nil: only what the system tells). Where the
// platform or filesystem has no such locks the error wraps
// result.ErrNotSupported, so the caller can say the run is not guarded.
func Dir(d osio.Dir, target string, holders func() []Holder) (*Lock, error) {
	id, _ := d.Identity()
	return lockFd(d.Fd(), id, target, holders)
}

// File takes the lock on an open file or device (clyde block's target).
func File(f osio.File, target string) (*Lock, error) {
	e, _ := f.Stat()
	return lockFd(f.Fd(), e.ID, target, nil)
}

func held(target string, id osio.Identity, holders func() []Holder) error {
	if holders != nil {
		if hs := holders(); len(hs) > 0 {
			return &HeldError{Target: target, Holder: hs[0]}
		}
	}
	return &HeldError{Target: target, Holder: systemHolder(id)}
}
