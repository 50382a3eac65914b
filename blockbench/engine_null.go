package blockbench

import (
	"github.com/clydebench/clyde/internal/osio"
	"github.com/clydebench/clyde/result"
)

// Diskless says whether the workload runs without a target: fio's null
// engine (FIO_DISKLESSIO) opens, creates and admits no file, whatever
// filename= says. resolvePlan gives such a workload the plan's one
// diskless target; this is the one place that decides it.
func (w *Workload) Diskless() bool { return w.IOEngine == EngineNull }

// validateDiskless holds a diskless workload's own rules: with no file to
// take a size from, size= is the whole region.
func (w *Workload) validateDiskless() error {
	switch {
	case w.Volume != nil:
		return result.Usagef("--ioengine", "workload %s: ioengine null opens no file, so it has no volume to stripe over", w.Name)
	case w.Size <= 0 && (w.Files == nil || w.Files.Size.Low == 0):
		return result.Usagef("--size", "workload %s: ioengine null opens no file, so --size is the whole region; give one, such as 1g", w.Name)
	}
	return nil
}

// nullEngine is fio's null (engines/null.c): no I/O is done, every I/O
// "completes" as soon as it is issued; the figures are the cost of the
// loop itself. At iodepth 1 fio runs it as a synchronous engine (no
// submission stage, no depth counts); above 1 it queues each I/O, commits
// it (the issue time is stamped then), and the next queue is refused
// (FIO_Q_BUSY) until getevents has taken the one committed: with fio's
// default iodepth_batch=1 one I/O is in flight at a time, so fio reports
// every I/O at depth 1, one per submit and one per reap, and clyde counts
// them the same way.
type nullEngine struct{}

func (nullEngine) name() Engine     { return EngineNull }
func (nullEngine) queues() bool     { return true }
func (nullEngine) available() error { return nil }

// splits: fio's null_init sets FIO_SYNCIO at iodepth 1, so its slat is
// not measured there.
func (nullEngine) splits(depth int) bool { return depth > 1 }

func (nullEngine) prepare(w *worker) (issuer, error) {
	n := &nullIssuer{queued: w.spec.depth > 1}
	if w.spec.RW.Writes() && w.fill != nil {
		// fio still fills a write's buffer (refill_buffers) before it
		// queues it to the engine.
		n.wbuf = osio.AlignedBuffer(w.pattern.maxSize(w))
	}
	return n, nil
}

// nullIssuer is one worker's null loop; queued is iodepth > 1.
type nullIssuer struct {
	wbuf   []byte
	queued bool
}

func (*nullIssuer) close() {}

// sync is fio's null taking a DDIR_SYNC io_u: it completes at once.
func (*nullIssuer) sync(bool) error { return nil }

func (n *nullIssuer) run(w *worker) {
	if t := w.now(); t >= w.nextEvent && w.tick(t) {
		return
	}
	for {
		dir, off, size := w.pattern.next(w)
		w.paused = false
		t0 := w.now()
		if dir == dirWrite && n.wbuf != nil {
			w.refill(n.wbuf[:size])
			t0 = w.now()
		}
		if !n.queued {
			// FIO_SYNCIO: the queue call returns completed.
			t1 := w.now()
			if !w.complete(dir, size, size, off, t0, t0, t1) {
				return
			}
			if t1 >= w.nextEvent && w.tick(t1) {
				return
			}
			continue
		}
		// Queued and committed: null_commit stamps the issue time.
		t1 := w.now()
		w.remaining--
		w.markDepth(1)
		// The next queue is busy until getevents takes this one.
		t2 := w.now()
		w.markReap(1)
		if !w.complete(dir, size, size, off, t0, t1, t2) || w.remaining <= 0 {
			return
		}
		if t2 >= w.nextEvent && w.tick(t2) {
			return
		}
	}
}
