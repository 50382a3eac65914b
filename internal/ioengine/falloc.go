package ioengine

import (
	"fmt"

	"github.com/clydebench/clyde/internal/osio"
	"github.com/clydebench/clyde/result"
)

// falloc is fio's falloc (engines/falloc.c): every I/O is one fallocate(2)
// of its block, moving no data: a write allocates and extends the file
// (mode 0), a read allocates without changing its size (KEEP_SIZE), a trim
// punches the block out (PUNCH_HOLE|KEEP_SIZE), on a regular file as on a
// device; each completes in Queue (FIO_SYNCIO) and counts its block's
// bytes, as fio counts them. fio opens its files O_RDWR whatever the
// direction; clyde opens a job's files for writing only when it writes or
// trims, so a job that only reads, which fio's falloc still allocates
// through, is refused rather than run on a descriptor that cannot. A sync
// unit is refused as fio's falloc fails it (a fallocate of 0 bytes:
// EINVAL).
var falloc = &Driver{
	Name:  "falloc",
	Flags: FlagNoData | FlagTrims,
	Available: func() error {
		if !osio.CanFallocate {
			return osio.Fallocate(osio.NoFile, 0, 0, 0)
		}
		return nil
	},
	Open: func(c Config) (Engine, error) { return &fallocEngine{files: c.Files}, nil },
	Check: func(j Job) error {
		switch {
		case !j.Writes && !j.Trims:
			return result.Usagef("--rw", "job %s: ioengine falloc allocates blocks with every read too (fallocate KEEP_SIZE); clyde runs it only on a job that writes or trims", j.Name)
		case j.Syncs:
			return result.Usagef("--fsync", "job %s: fio's falloc fails a sync (a fallocate of 0 bytes, EINVAL); drop fsync and fdatasync", j.Name)
		}
		return nil
	},
}

func init() { Register(falloc) }

// errFallocSync is falloc's refusal of a sync unit (fio's EINVAL), made
// once: Queue does not allocate.
var errFallocSync = fmt.Errorf("falloc does not sync (fio's engine fails a sync with EINVAL): %w", ErrNotSupported)

type fallocEngine struct{ files []osio.File }

func (e *fallocEngine) Queue(u *Unit) Status {
	var mode uint32
	switch u.Op {
	case Read:
		mode = osio.AllocKeepSize
	case Write:
		mode = osio.AllocExtend
	case Trim:
		mode = osio.PunchHole
	default:
		u.N, u.Err = 0, errFallocSync
		return Completed
	}
	u.N, u.Err = len(u.Buf), osio.Fallocate(e.files[u.File], mode, u.Off, int64(len(u.Buf)))
	if u.Err != nil {
		u.N = 0
	}
	return Completed
}

func (*fallocEngine) Commit() (int, error)            { return 0, nil }
func (*fallocEngine) GetEvents(int, int) (int, error) { return 0, nil }
func (*fallocEngine) Event(int) *Unit                 { return nil }
func (*fallocEngine) Close() error                    { return nil }
