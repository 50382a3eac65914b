package rundir

import (
	"errors"

	"github.com/clydebench/clyde/internal/osio"
	"github.com/clydebench/clyde/internal/runlock"
	"github.com/clydebench/clyde/internal/safepath"
	"github.com/clydebench/clyde/result"
)

// Parent is the directory runs make their private directories in (fs and
// copy's -d and --to, the directory of block's new files): opened once by
// the path rule (internal/safepath), and locked, so that a second run
// there is refused with the first one named rather than measuring it.
// Everything below it is reached through Dir.
type Parent struct {
	Path string
	Dir  osio.Dir
	lock *runlock.Lock
	// NoLock is why the directory is not locked where a lock was asked
	// for: an error wrapping result.ErrNotSupported from a platform or
	// filesystem without such locks. The caller says so as it says things
	// (a warning, a note) and runs unguarded.
	NoLock error
}

// OpenParent opens path and, when lock is set, takes the run lock on it
// (Lock). A job's ranks share the directory, and the job locks it once:
// they open it with lock false. A path that cannot be opened is a usage
// error naming flag; a lock another run holds is runlock's refusal.
func OpenParent(flag, path string, lock bool) (*Parent, error) {
	d, err := safepath.OpenDir(path)
	if err != nil {
		return nil, result.Usagef(flag, "%v", err)
	}
	p := &Parent{Path: path, Dir: d}
	if !lock {
		return p, nil
	}
	p.lock, err = Lock(d, path)
	switch {
	case errors.Is(err, result.ErrNotSupported):
		p.lock, p.NoLock = nil, err
	case err != nil:
		d.Close()
		return nil, err
	}
	return p, nil
}

// Lock takes the run lock (internal/runlock) on parent, naming as its
// holders the runs whose markers there say they are alive (Holders).
func Lock(parent osio.Dir, path string) (*runlock.Lock, error) {
	return runlock.Dir(parent, path, func() []runlock.Holder { return Holders(parent) })
}

// Close gives the lock back and closes the directory; a nil Parent is
// nothing to close. The private directories made in it are removed first,
// by their own Remove.
func (p *Parent) Close() error {
	if p == nil {
		return nil
	}
	err := p.lock.Release()
	p.lock = nil
	if p.Dir.Valid() {
		err = errors.Join(err, p.Dir.Close())
		p.Dir = osio.Dir{}
	}
	return err
}
