package ioengine

import "github.com/clydebench/clyde/internal/osio"

// psync is fio's psync: one pread or pwrite at a time, completed in Queue.
// It also issues trims (BLKDISCARD, one at a time, as fio's do_io_u_trim),
// which run on psync whatever synchronous engine a trim job names.
var psync = &Driver{
	Name:      "psync",
	Available: func() error { return nil },
	Open:      func(c Config) (Engine, error) { return &psyncEngine{files: c.Files}, nil },
}

func init() { Register(psync) }

type psyncEngine struct{ files []osio.File }

func (p *psyncEngine) Queue(u *Unit) Status {
	f := p.files[u.File]
	switch u.Op {
	case Read:
		u.N, u.Err = f.Pread(u.Buf, u.Off)
	case Write:
		u.N, u.Err = f.Pwrite(u.Buf, u.Off)
	case Trim:
		u.N, u.Err = len(u.Buf), osio.Discard(f, u.Off, int64(len(u.Buf)))
	default:
		u.N, u.Err = 0, fileSync(f, u.Op)
	}
	return Completed
}

func (*psyncEngine) Commit() (int, error)            { return 0, nil }
func (*psyncEngine) GetEvents(int, int) (int, error) { return 0, nil }
func (*psyncEngine) Event(int) *Unit                 { return nil }
func (*psyncEngine) Close() error                    { return nil }
