package blockbench

import (
	"fmt"

	"github.com/clydebench/clyde/internal/osio"
)

// backlog is fio's verify_backlog: the blocks written and not yet read
// back, in the order they were written (fio's io_hist_list, kept in write
// order when the job has its random map: log_io_piece), and the state of
// io_u.c's check_get_verify, which decides before each I/O whether it is
// a read of the oldest of them instead: once verify_backlog blocks are
// pending after a write, verify_backlog_batch of them (verify_backlog
// when 0) are read back, one per I/O; a batch that finds none left waits
// for the next write. Each block read back is checked and leaves the
// verify pass, which reads what is left at the end.
type backlog struct {
	every int64
	batch int
	// pending is a ring of block indexes, head first.
	pending     []int32
	head, n     int
	batchLeft   int
	lastWasRead bool
	buf         []byte
}

func newBacklog(spec *workload, blocks uint64) *backlog {
	b := &backlog{every: spec.VerifyBacklog, batch: spec.VerifyBacklogBatch}
	if b.batch == 0 {
		b.batch = int(min(spec.VerifyBacklog, int64(maxVerifyBlocks)))
	}
	b.pending = make([]int32, max(1, blocks)) // each block once a pass (validateVerifyExtras)
	return b
}

// written records a block the write pass is about to write (fio logs it
// when it is issued).
func (b *backlog) written(i int64) {
	if b.n == len(b.pending) {
		return // a block already pending is written again: the ring holds it
	}
	b.pending[(b.head+b.n)%len(b.pending)] = int32(i)
	b.n++
	b.lastWasRead = false
}

// due reads back and checks the blocks check_get_verify would issue
// before the next write: with fio's rule, each as an I/O of its own,
// counted in the job's reads. A bad block fails the worker, which then
// stops, as fio ends the job at its first bad block.
func (b *backlog) due(w *worker) {
	for b.n > 0 && w.err == nil {
		if b.batchLeft == 0 {
			if int64(b.n)%b.every != 0 || b.lastWasRead {
				return
			}
			b.batchLeft = b.batch
		}
		i := b.pending[b.head]
		b.head, b.n = (b.head+1)%len(b.pending), b.n-1
		b.batchLeft--
		b.lastWasRead = true
		if !w.verifyBlock(int64(i)) {
			w.remaining = 0 // the write drawn next is the last
			return
		}
	}
}

// beforeBacklogRead, when set (by a test), runs before each block the
// backlog reads back.
var beforeBacklogRead func(w *worker, off int64)

// verifyBlock reads back block i of the region during the write pass and
// checks it against its last write; false when it is bad or cannot be
// read (the worker's error says which). It leaves the block to no later
// pass.
func (w *worker) verifyBlock(i int64) bool {
	v, b := w.verify, w.verify.backlog
	if b.buf == nil {
		b.buf = osio.AlignedBuffer(int(v.bs))
	}
	seed := v.seeds[i]
	off := v.base + i*v.bs
	if beforeBacklogRead != nil {
		beforeBacklogRead(w, off)
	}
	tp := w.now()
	n, err := w.h.Pread(b.buf, off)
	t1 := w.now()
	if err != nil {
		w.fail(fmt.Errorf("verify: read %d bytes at offset %d: %w", len(b.buf), off, err))
		return false
	}
	w.complete(dirRead, n, len(b.buf), off, tp, tp, t1) // not one of the write pass's I/Os: the loop counts those
	w.paused = true                                     // the engine's clock reading from before is stale
	v.seeds[i] = 0
	if bad := v.check(b.buf[:n], off, seed); bad != "" {
		w.fail(&VerifyError{File: w.spec.target.Resolved, Bad: 1, Checked: 1, Backlog: true, Lines: []string{bad}})
		return false
	}
	return true
}
