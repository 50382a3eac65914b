//go:build !windows

package ioengine

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// posixaio is fio's posixaio (engines/posixaio.c) over glibc's POSIX AIO,
// which clyde cannot call without cgo; what runs is glibc's model
// (rt/aio_misc.c) rebuilt in Go, not glibc's code, and the result says so
// in a note:
//
//   - aio_read/aio_write enqueue a request (aioPool.enqueue). Requests on a
//     descriptor that already has one are queued behind it, by priority and
//     then in submit order, and run one at a time: the helper that finishes
//     one puts the next on the run list. A request on a new descriptor goes
//     to a new helper thread while fewer than aio_threads (20) run and none
//     is idle, else on the run list, waking an idle helper. A helper with
//     nothing to do waits aio_idle_time (1 s) for work, then exits.
//   - A helper runs the request as pread/pwrite, sets its error code and
//     return value under the lock, and wakes the aio_suspend calls waiting
//     on it.
//   - fio queues an I/O per free slot (no commit: stamped as issued when
//     aio_read returns), and reaps with fio_posixaio_getevents: a scan of
//     its I/Os in flight, in the order of its io_u array, with aio_error,
//     taking every one done (FlagReapsAll); when fewer than min are done,
//     aio_suspend on up to 8 of those still in progress, and scan again.
//   - fsync=, fdatasync= and end_fsync are aio_fsync(O_SYNC) or
//     aio_fsync(O_DSYNC): a request queued behind the descriptor's others,
//     which clyde waits for at once where fio reaps it with the rest.
//
// Helpers are goroutines, not threads locked to one: each blocks in its
// own pread, as a glibc helper does, and the Go runtime gives a blocked
// one a thread of its own.
var posixaio = &Driver{
	Name:      "posixaio",
	Flags:     FlagQueues | FlagReapsAll,
	Available: func() error { return nil },
	Open:      openPosixAIO,
	Note:      posixAIONote,
}

func init() { Register(posixaio) }

// posixAIONote is the note a posixaio run records, with what differs from
// fio 3.33's posixaio when the workload syncs. fio 3.33 issues iodepth
// aio_fsyncs at each fsync= point (strace: 60 fsync calls for 256 writes
// with fsync=16 at iodepth 4, 15 at iodepth 1; its JSON counts 60 syncs).
// That is a bug of fio's, fixed in 3.37 (axboe/fio#1754): get_rw_ddir
// asks for a sync while the write count is a multiple of fsync= and
// last_was_sync is false, and 3.33 set last_was_sync only when a sync
// completed (io_completed). An engine that queues its fsync (posixaio's
// aio_fsync, io_uring's IORING_OP_FSYNC; libaio runs it at once on an
// empty queue, FIO_Q_BUSY until then) gets one more sync in every slot
// that frees before the first completes; with posixaio glibc runs one
// descriptor's requests in order, so the iodepth-1 writes ahead of the
// first fsync complete first, each freeing a slot for another: iodepth
// fsyncs, all to sync the same writes. fio 3.37 marks the sync on issue,
// as its documentation (a sync after every fsync= writes) says, and clyde
// issues one per sync point for every engine, as that fio does.
func posixAIONote(j Job) string {
	if j.Syncs {
		return posixAIONoteText + "; fsync=/fdatasync=: one aio_fsync per sync point, as fio 3.37 and later; fio 3.33 to 3.36 issue iodepth of them (each slot that frees before the first completes gets another: axboe/fio#1754)"
	}
	return posixAIONoteText
}

const posixAIONoteText = "ioengine posixaio: glibc's POSIX AIO model rebuilt in Go, not glibc's code: up to 20 helper threads, requests on one descriptor run one at a time in submit order, reaped with aio_error scans and aio_suspend as fio's posixaio does"

// glibc's optim defaults (rt/aio_misc.c).
const (
	aioThreads  = 20
	aioIdleTime = time.Second
)

// Request states, glibc's requestlist.running.
const (
	aioQueued    = iota // behind another request of its descriptor
	aioRunnable         // on the run list ("yes")
	aioAllocated        // a helper runs it
	aioDone
)

// Request operations.
const (
	aioRead = iota
	aioWrite
	aioSync
	aioDatasync
)

// aioFile is what a helper calls a request's descriptor through:
// osio.File, or a test's file that blocks to show the order requests run
// in.
type aioFile interface {
	Pread(b []byte, off int64) (int, error)
	Pwrite(b []byte, off int64) (int, error)
	Sync() error
	Datasync() error
	Fd() int
}

// aioRequest is one aiocb and its requestlist entry.
type aioRequest struct {
	f    aioFile
	fd   int
	op   int
	buf  []byte
	off  int64
	prio int
	// inProgress is aio_error's EINPROGRESS: set by enqueue, cleared by
	// the helper once n and err hold the result.
	inProgress atomic.Bool
	n          int
	err        error
	// Under aioPool.mu.
	state    int
	nextPrio *aioRequest     // the descriptor's next request
	nextRun  *aioRequest     // the run list
	waiting  []chan struct{} // aio_suspend calls waiting on it
}

// aioPool is glibc's process-wide AIO state: the requests by descriptor,
// the run list, the helper count. One per process, as in glibc.
type aioPool struct {
	mu       sync.Mutex
	requests map[int]*aioRequest // the head request of each busy descriptor
	runlist  *aioRequest
	nthreads int
	idle     int
	// wake is __aio_new_request_notification: a signal wakes one idle
	// helper.
	wake chan struct{}
}

var posixAIO = newAIOPool()

func newAIOPool() *aioPool {
	return &aioPool{requests: map[int]*aioRequest{}, wake: make(chan struct{}, aioThreads)}
}

// enqueue is __aio_enqueue_request.
func (p *aioPool) enqueue(r *aioRequest) {
	// Under the lock: the helper that finished this request's previous
	// use may still be reading its list fields (glibc's aiocb and its
	// requestlist entry are apart; here they are one).
	p.mu.Lock()
	defer p.mu.Unlock()
	r.inProgress.Store(true)
	r.n, r.err, r.nextPrio, r.nextRun, r.waiting = 0, nil, nil, nil, r.waiting[:0]
	if r.op == aioSync || r.op == aioDatasync {
		r.prio = 0
	}
	if head := p.requests[r.fd]; head != nil {
		// The descriptor is worked on: after every request of at least
		// its priority.
		runp := head
		for runp.nextPrio != nil && runp.nextPrio.prio >= r.prio {
			runp = runp.nextPrio
		}
		r.nextPrio, runp.nextPrio = runp.nextPrio, r
		r.state = aioQueued
		return
	}
	p.requests[r.fd] = r
	if p.nthreads < aioThreads && p.idle == 0 {
		r.state = aioAllocated
		p.nthreads++
		go p.handle(r)
		return
	}
	r.state = aioRunnable
	p.addRunlist(r)
	if p.idle > 0 {
		p.signal()
	}
}

// signal wakes one idle helper (pthread_cond_signal).
func (p *aioPool) signal() {
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// addRunlist is add_request_to_runlist: by priority, in order among equals.
func (p *aioPool) addRunlist(r *aioRequest) {
	if p.runlist == nil || p.runlist.prio < r.prio {
		r.nextRun, p.runlist = p.runlist, r
		return
	}
	runp := p.runlist
	for runp.nextRun != nil && runp.nextRun.prio >= r.prio {
		runp = runp.nextRun
	}
	r.nextRun, runp.nextRun = runp.nextRun, r
}

// handle is handle_fildes_io: a helper runs its request, then what the run
// list holds, and exits after aio_idle_time with nothing to do.
func (p *aioPool) handle(runp *aioRequest) {
	idle := time.NewTimer(aioIdleTime) // one per helper: a wait allocates nothing
	idle.Stop()
	for {
		if runp == nil {
			p.mu.Lock()
		} else {
			n, err := runp.do()
			p.mu.Lock()
			p.done(runp, n, err)
		}
		runp = p.runlist
		if runp == nil {
			p.idle++
			p.mu.Unlock()
			idle.Reset(aioIdleTime)
			select {
			case <-p.wake:
			case <-idle.C:
			}
			idle.Stop()
			p.mu.Lock()
			p.idle--
			runp = p.runlist
		}
		if runp == nil {
			p.nthreads--
			p.mu.Unlock()
			return
		}
		runp.state = aioAllocated
		p.runlist = runp.nextRun
		if p.runlist != nil {
			// Two or more runnable: wake or start another helper.
			if p.idle > 0 {
				p.signal()
			} else if p.nthreads < aioThreads {
				p.nthreads++
				go p.handle(nil)
			}
		}
		p.mu.Unlock()
	}
}

// done records a request's result, under the lock, and wakes its waiters;
// the descriptor's next request becomes its head, runnable.
func (p *aioPool) done(runp *aioRequest, n int, err error) {
	runp.n, runp.err = n, err
	for _, c := range runp.waiting {
		select {
		case c <- struct{}{}:
		default:
		}
	}
	runp.waiting = runp.waiting[:0]
	runp.state = aioDone
	if next := runp.nextPrio; next != nil {
		p.requests[runp.fd] = next
		next.state = aioRunnable
		p.addRunlist(next)
	} else {
		delete(p.requests, runp.fd)
	}
	// The last touch of runp: once aio_error says done, its owner may
	// reuse it (a woken waiter rescans under the lock).
	runp.inProgress.Store(false)
}

// do runs one request as a helper does, retrying EINTR
// (TEMP_FAILURE_RETRY).
func (r *aioRequest) do() (int, error) {
	for {
		var n int
		var err error
		switch r.op {
		case aioRead:
			n, err = r.f.Pread(r.buf, r.off)
		case aioWrite:
			n, err = r.f.Pwrite(r.buf, r.off)
		case aioSync:
			err = r.f.Sync()
		default:
			err = r.f.Datasync()
		}
		if !errors.Is(err, syscall.EINTR) {
			return n, err
		}
	}
}

// aioWaiter is one caller's aio_suspend state, reused call after call so
// that a wait allocates nothing: its wake channel (capacity 1) and timer.
type aioWaiter struct {
	c     chan struct{}
	timer *time.Timer
}

func newAIOWaiter() *aioWaiter {
	t := time.NewTimer(time.Hour)
	t.Stop()
	return &aioWaiter{c: make(chan struct{}, 1), timer: t}
}

// suspend is aio_suspend on list: it returns at once when one of them is
// done, else waits until one is or timeout passes.
func (p *aioPool) suspend(list []*aioRequest, wt *aioWaiter, timeout time.Duration) {
	c := wt.c
	p.mu.Lock()
	for _, r := range list {
		if !r.inProgress.Load() {
			p.mu.Unlock()
			return
		}
	}
	select {
	case <-c: // a stale wake from an earlier call
	default:
	}
	for _, r := range list {
		r.waiting = append(r.waiting, c)
	}
	p.mu.Unlock()
	wt.timer.Reset(timeout)
	select {
	case <-c:
	case <-wt.timer.C:
	}
	wt.timer.Stop()
	p.mu.Lock()
	for _, r := range list {
		for i, w := range r.waiting {
			if w == c {
				r.waiting = append(r.waiting[:i], r.waiting[i+1:]...)
				break
			}
		}
	}
	p.mu.Unlock()
}

// posixAIOSuspendEntries is fio's SUSPEND_ENTRIES.
const posixAIOSuspendEntries = 8

// posixAIOSlot is one of fio's io_us: the aiocb of the unit at its index.
type posixAIOSlot struct {
	req      aioRequest
	u        *Unit
	inFlight bool
}

// posixAIOEngine is one worker's posixaio state.
type posixAIOEngine struct {
	slots    []posixAIOSlot
	inflight int
	events   []int // slots the last GetEvents took
	suspend  []*aioRequest
	wake     *aioWaiter
	syncReq  aioRequest
	// files are the worker's descriptors as aioFiles, made once (a
	// conversion per I/O would allocate).
	files []aioFile
	pool  *aioPool
}

func openPosixAIO(c Config) (Engine, error) {
	a := &posixAIOEngine{slots: make([]posixAIOSlot, c.Depth), events: make([]int, 0, c.Depth),
		suspend: make([]*aioRequest, 0, posixAIOSuspendEntries), wake: newAIOWaiter(), pool: posixAIO}
	for i := range a.slots {
		a.slots[i].req.waiting = make([]chan struct{}, 0, 1)
	}
	for _, f := range c.Files {
		a.files = append(a.files, f)
	}
	if len(a.files) == 0 {
		return nil, errors.New("ioengine posixaio: no file to queue to")
	}
	a.syncReq.f = a.files[0]
	return a, nil
}

// Queue is fio_posixaio_queue: aio_read or aio_write, which is the
// submission; a sync is aio_fsync, waited for.
func (a *posixAIOEngine) Queue(u *Unit) Status {
	switch u.Op {
	case Read, Write:
	case Sync, Datasync:
		u.N, u.Err = 0, a.sync(u.Op == Datasync)
		return Completed
	default:
		u.N, u.Err = 0, fmt.Errorf("ioengine posixaio: %s: %w", u.Op, ErrNotSupported)
		return Completed
	}
	s := &a.slots[u.Index]
	s.u = u
	s.req.op = aioRead
	if u.Op == Write {
		s.req.op = aioWrite
	}
	f := a.files[u.File]
	s.req.f, s.req.fd, s.req.buf, s.req.off = f, f.Fd(), u.Buf, u.Off
	a.pool.enqueue(&s.req)
	s.inFlight = true
	a.inflight++
	return Queued
}

func (*posixAIOEngine) Commit() (int, error) { return 0, nil }

// Close waits for whatever is still in flight, so no helper touches a
// buffer after the worker is gone.
func (a *posixAIOEngine) Close() error {
	for a.inflight > 0 {
		_, _ = a.GetEvents(a.inflight, a.inflight)
	}
	return nil
}

// sync is aio_fsync on the worker's descriptor, queued behind its
// requests, waited for.
func (a *posixAIOEngine) sync(data bool) error {
	r := &a.syncReq
	r.op, r.fd = aioSync, r.f.Fd()
	if data {
		r.op = aioDatasync
	}
	a.pool.enqueue(r)
	one := []*aioRequest{r}
	for r.inProgress.Load() {
		a.pool.suspend(one, a.wake, posixAIOWaitTimeout)
	}
	return r.err
}

// posixAIOWaitTimeout bounds one aio_suspend (fio passes none), so the loop
// looks at its context and deadline at least this often on a slow device.
const posixAIOWaitTimeout = 100 * time.Millisecond

// GetEvents is fio_posixaio_getevents(min): every slot found done, up to
// max, is taken; fewer than min done means aio_suspend on up to 8 still in
// progress and another scan. A wait that times out returns what it has,
// maybe none.
func (a *posixAIOEngine) GetEvents(min, max int) (int, error) {
	a.events = a.events[:0]
	for {
		a.scan(max)
		if len(a.events) >= min || len(a.events) >= max || len(a.suspend) == 0 {
			return len(a.events), nil
		}
		a.pool.suspend(a.suspend, a.wake, posixAIOWaitTimeout)
		if allInProgress(a.suspend) {
			return len(a.events), nil // timed out: the core looks at its clock and comes back
		}
	}
}

// scan is one pass over the slots in index order, with aio_error: a slot
// done is taken (its unit's result set), one in progress goes on the
// suspend list (up to 8).
func (a *posixAIOEngine) scan(max int) {
	a.suspend = a.suspend[:0]
	for i := range a.slots {
		s := &a.slots[i]
		if !s.inFlight {
			continue
		}
		if s.req.inProgress.Load() {
			if len(a.suspend) < posixAIOSuspendEntries {
				a.suspend = append(a.suspend, &s.req)
			}
			continue
		}
		if len(a.events) == max {
			continue
		}
		s.inFlight = false
		a.inflight--
		s.u.N, s.u.Err = s.req.n, s.req.err
		a.events = append(a.events, i)
	}
}

func (a *posixAIOEngine) Event(i int) *Unit { return a.slots[a.events[i]].u }

// allInProgress is true when no request of list is done.
func allInProgress(list []*aioRequest) bool {
	for _, r := range list {
		if !r.inProgress.Load() {
			return false
		}
	}
	return true
}
