// Package runlock stops two clyde runs on the same directory or device from
// overlapping: two benchmarks on one disk measure each other. The lock is an
// advisory file lock (flock, LockFileEx) on a file named after the target, so
// the kernel releases it when a holder dies, however it dies. The file holds
// who took it, so the second run can say who is in the way.
package runlock

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Holder is who holds a lock.
type Holder struct {
	PID     int       `json:"pid"`
	Host    string    `json:"host"`
	Started time.Time `json:"started"`
	Target  string    `json:"target"`
	Command string    `json:"command,omitempty"`
}

// HeldError is returned when another process holds the lock.
type HeldError struct {
	Target string
	Holder Holder // zero when the holder could not be read
}

func (e *HeldError) Error() string {
	h := e.Holder
	if h.PID == 0 {
		return fmt.Sprintf("another clyde run holds the lock on %s", e.Target)
	}
	return fmt.Sprintf("another clyde run is using %s: pid %d on %s, started %s",
		e.Target, h.PID, h.Host, h.Started.Local().Format("2006-01-02 15:04:05"))
}

// Lock is a held lock; Release gives it back.
type Lock struct {
	f *os.File
}

// Dir is where lock files live: one shared directory per machine, so that
// runs by different users on one disk see each other.
func Dir() string { return filepath.Join(os.TempDir(), "clyde-locks") }

// PathFor is the lock file of a target (a directory or device), after
// symlinks are resolved so /dev/disk/by-id/... and /dev/sda share one.
func PathFor(dir, target string) string {
	abs, err := filepath.Abs(target)
	if err == nil {
		if r, err := filepath.EvalSymlinks(abs); err == nil {
			abs = r
		}
	} else {
		abs = target
	}
	sum := sha256.Sum256([]byte(abs))
	base := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '.' {
			return r
		}
		return '_'
	}, filepath.Base(abs))
	if len(base) > 40 {
		base = base[:40]
	}
	return filepath.Join(dir, base+"-"+hex.EncodeToString(sum[:6])+".lock")
}

// Acquire takes the lock on target in dir (Dir() unless testing), without
// waiting: a held lock returns *HeldError at once. me describes this process.
// Where the platform has no file locks the error wraps
// result.ErrNotSupported, so the caller can say runs are not guarded.
func Acquire(dir, target string, me Holder) (*Lock, error) {
	if err := os.MkdirAll(dir, 0o1777); err != nil {
		return nil, fmt.Errorf("lock %s: %w", target, err)
	}
	_ = os.Chmod(dir, 0o1777|os.ModeSticky) // shared by all users; best effort
	path := PathFor(dir, target)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o666)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", target, err)
	}
	if err := tryLock(f); err != nil {
		defer f.Close()
		if errors.Is(err, errWouldBlock) {
			var h Holder
			if b, rerr := io.ReadAll(io.LimitReader(f, 1<<16)); rerr == nil {
				_ = json.Unmarshal(b, &h)
			}
			return nil, &HeldError{Target: target, Holder: h}
		}
		return nil, fmt.Errorf("lock %s: %w", target, err)
	}
	me.Target = target
	b, _ := json.Marshal(me)
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt(append(b, '\n'), 0)
	}
	return &Lock{f: f}, nil
}

// Release gives the lock back. The file stays: removing it would let a
// waiting process lock a file that is no longer the one others open.
func (l *Lock) Release() error {
	if l == nil || l.f == nil {
		return nil
	}
	_ = l.f.Truncate(0)
	err := unlock(l.f)
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	l.f = nil
	return err
}

// errWouldBlock is what tryLock returns when another process holds the lock.
var errWouldBlock = errors.New("lock held")
