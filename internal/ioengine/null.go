package ioengine

// null is fio's null (engines/null.c): no I/O is done, every unit
// "completes" as soon as it is issued; the figures are the cost of the
// core's loop itself. At iodepth 1 fio runs it as a synchronous engine (no
// submission stage, no depth counts); above 1 it queues each unit, commits
// it (the issue time is stamped then), and the next queue is refused
// (FIO_Q_BUSY) until getevents has taken the one committed: with fio's
// default iodepth_batch=1 one unit is in flight at a time, so fio reports
// every I/O at depth 1, one per submit and one per reap, and the core
// counts them the same way (FlagOneInFlight). A sync completes at once, as
// fio's null takes a DDIR_SYNC. It opens no file (the workload is
// diskless).
var null = &Driver{
	Name:      "null",
	Flags:     FlagQueues | FlagCommits | FlagSyncAtDepth1 | FlagOneInFlight | FlagDiskless,
	Available: func() error { return nil },
	Open:      openNull,
}

func init() { Register(null) }

func openNull(c Config) (Engine, error) {
	return &nullEngine{sync: c.Depth <= 1, ring: make([]*Unit, max(c.Depth, 1)), got: make([]*Unit, 0, max(c.Depth, 1))}, nil
}

// nullEngine holds the units it was given in a ring: queued of them from
// head+done on, waiting for Commit, and done from head on, committed and
// not yet reaped; got are what the last GetEvents took. sync is iodepth 1.
type nullEngine struct {
	ring               []*Unit
	head, done, queued int
	got                []*Unit
	sync               bool
}

func (n *nullEngine) Queue(u *Unit) Status {
	u.N, u.Err = len(u.Buf), nil
	if u.Op >= Sync {
		u.N = 0
	}
	if n.sync || u.Op != Read && u.Op != Write {
		return Completed // FIO_SYNCIO
	}
	n.ring[(n.head+n.done+n.queued)%len(n.ring)] = u
	n.queued++
	return Queued
}

// Commit is null_commit: what was queued is done at once.
func (n *nullEngine) Commit() (int, error) {
	k := n.queued
	n.done, n.queued = n.done+k, 0
	return k, nil
}

func (n *nullEngine) GetEvents(_, max int) (int, error) {
	n.got = n.got[:0]
	for ; n.done > 0 && len(n.got) < max; n.done-- {
		n.got = append(n.got, n.ring[n.head])
		n.head = (n.head + 1) % len(n.ring)
	}
	return len(n.got), nil
}

func (n *nullEngine) Event(i int) *Unit { return n.got[i] }

func (*nullEngine) Close() error { return nil }
