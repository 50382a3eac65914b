package ioengine

import (
	"fmt"

	"github.com/clydebench/clyde/internal/osio"
	"github.com/clydebench/clyde/result"
)

// ftruncate is fio's ftruncate (engines/ftruncate.c): every write is one
// ftruncate(2) of the file to the write's offset, moving no data (its
// block size only steps the offsets), and counts its block's bytes, as
// fio counts them; it completes in Queue (FIO_SYNCIO). fio's engine fails
// every other direction with EINVAL, so clyde refuses a job that reads,
// trims or syncs before anything runs.
var ftruncate = &Driver{
	Name:      "ftruncate",
	Flags:     FlagNoData,
	Available: func() error { return nil },
	Open:      func(c Config) (Engine, error) { return &ftruncateEngine{files: c.Files}, nil },
	Check: func(j Job) error {
		switch {
		case j.Reads || j.Trims || !j.Writes:
			return result.Usagef("--rw", "job %s: ioengine ftruncate only writes (each write truncates the file to its offset); fio's engine fails every read and trim with EINVAL", j.Name)
		case j.Syncs:
			return result.Usagef("--fsync", "job %s: fio's ftruncate fails a sync with EINVAL; drop fsync and fdatasync", j.Name)
		}
		return nil
	},
}

func init() { Register(ftruncate) }

// errWritesOnly is ftruncate's refusal of a unit that is not a write (fio's
// EINVAL), made once: Queue does not allocate.
var errWritesOnly = fmt.Errorf("ftruncate takes writes only (fio's engine fails any other I/O with EINVAL): %w", ErrNotSupported)

type ftruncateEngine struct{ files []osio.File }

func (e *ftruncateEngine) Queue(u *Unit) Status {
	if u.Op != Write {
		u.N, u.Err = 0, errWritesOnly
		return Completed
	}
	u.N, u.Err = len(u.Buf), e.files[u.File].Truncate(u.Off)
	if u.Err != nil {
		u.N = 0
	}
	return Completed
}

func (*ftruncateEngine) Commit() (int, error)            { return 0, nil }
func (*ftruncateEngine) GetEvents(int, int) (int, error) { return 0, nil }
func (*ftruncateEngine) Event(int) *Unit                 { return nil }
func (*ftruncateEngine) Close() error                    { return nil }
