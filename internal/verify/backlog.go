package verify

// backlog is fio's verify_backlog: the blocks written and not yet read
// back, in the order they were written (fio's io_hist_list, kept in write
// order when the job has its random map: log_io_piece), and the state of
// io_u.c's check_get_verify, which decides before each I/O whether it is
// a read of the oldest of them instead: once verify_backlog blocks are
// pending after a write, verify_backlog_batch of them (verify_backlog
// when 0) are read back, one per I/O; a batch that finds none left waits
// for the next write. Each block read back leaves the final read back,
// which reads what is left at the end.
type backlog struct {
	every int64
	batch int
	// pending is a ring of block indexes, head first.
	pending     []int32
	head, n     int
	batchLeft   int
	lastWasRead bool
}

// newBacklog is the backlog of a region of blocks blocks, each written
// once a pass.
func newBacklog(every int64, batch, blocks int) *backlog {
	b := &backlog{every: every, batch: batch}
	if b.batch == 0 {
		b.batch = int(min(every, int64(MaxBlocks)))
	}
	b.pending = make([]int32, max(1, blocks))
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

// next is the block check_get_verify would read back before the next
// write, with fio's rule; false when the next I/O is the write.
func (b *backlog) next() (int64, bool) {
	if b.n == 0 {
		return 0, false
	}
	if b.batchLeft == 0 {
		if int64(b.n)%b.every != 0 || b.lastWasRead {
			return 0, false
		}
		b.batchLeft = b.batch
	}
	i := b.pending[b.head]
	b.head, b.n = (b.head+1)%len(b.pending), b.n-1
	b.batchLeft--
	b.lastWasRead = true
	return int64(i), true
}

// NextBacklog is the block verify_backlog reads back before the next
// write, each as an I/O of its own, with fio's rule; false when the next
// I/O is the write (or the region has no backlog). The caller reads it
// back with Take.
func (b *Blocks) NextBacklog() (int64, bool) {
	if b.backlog == nil {
		return 0, false
	}
	return b.backlog.next()
}

// Read records a read of a mixed job's own (not one read back): fio's
// check_get_verify starts no batch after a read, whichever it was
// (last_ddir).
func (b *Blocks) Read() {
	if b.backlog != nil {
		b.backlog.lastWasRead = true
	}
}
