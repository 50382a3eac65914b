//go:build linux

package blockbench

import (
	"errors"
	"fmt"
	"sync"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/clydebench/clyde/internal/osio"
)

// Linux native AIO ABI (include/uapi/linux/aio_abi.h).
const (
	iocbCmdPread    = 0
	iocbCmdPwrite   = 1
	libaioIOCBSize  = 64
	libaioEventSize = 32
)

// libaioIOCB is struct iocb. A big-endian kernel has aio_rw_flags before
// aio_key; clyde leaves both zero, so one layout serves both byte orders.
type libaioIOCB struct {
	data   uint64 // aio_data: the slot, given back in io_event.data
	_      uint32 // aio_key
	_      uint32 // aio_rw_flags
	opcode uint16
	_      int16 // aio_reqprio
	fildes uint32
	buf    uint64
	nbytes uint64
	offset int64
	_      uint64 // aio_reserved2
	flags  uint32
	_      uint32 // aio_resfd
}

// libaioEvent is struct io_event.
type libaioEvent struct {
	data uint64
	obj  uint64
	res  int64
	res2 int64
}

// The layout is the kernel ABI; a wrong size would make the kernel read
// the wrong fields.
var _ [libaioIOCBSize - unsafe.Sizeof(libaioIOCB{})]struct{}
var _ [unsafe.Sizeof(libaioIOCB{}) - libaioIOCBSize]struct{}
var _ [libaioEventSize - unsafe.Sizeof(libaioEvent{})]struct{}
var _ [unsafe.Sizeof(libaioEvent{}) - libaioEventSize]struct{}

// libaioSetup is io_setup(nr): a context for nr I/Os in flight, as fio's
// io_queue_init(iodepth).
func libaioSetup(nr int) (uintptr, error) {
	var ctx uintptr
	_, _, errno := unix.Syscall(unix.SYS_IO_SETUP, uintptr(nr), uintptr(unsafe.Pointer(&ctx)), 0)
	switch {
	case errno == unix.EAGAIN:
		return 0, fmt.Errorf("io_setup(%d): the system's AIO limit (/proc/sys/fs/aio-max-nr) has no room for it: %w", nr, errno)
	case errno != 0:
		return 0, fmt.Errorf("io_setup(%d): %w", nr, errno)
	}
	return ctx, nil
}

// libaioDestroy is io_destroy: the kernel waits for every I/O still in
// flight on the context before it returns.
func libaioDestroy(ctx uintptr) {
	_, _, _ = unix.Syscall(unix.SYS_IO_DESTROY, ctx, 0, 0)
}

var libaioProbe = sync.OnceValue(func() error {
	ctx, err := libaioSetup(1)
	if err != nil {
		if errors.Is(err, unix.ENOSYS) {
			return fmt.Errorf("libaio is not available here (a kernel without CONFIG_AIO): %w", err)
		}
		return err
	}
	libaioDestroy(ctx)
	return nil
})

// libaioEngine is fio's libaio, Linux native AIO on raw system calls (no
// libaio.so, no cgo): io_setup(iodepth), one io_submit per I/O and
// io_getevents for completions.
//
// It mirrors what fio 3.33's engines/libaio.c and its I/O loop do with
// their defaults: iodepth_batch_submit=1 (one iocb per io_submit, stamped
// as issued when io_submit returns: that call is the submission latency);
// the loop fills the queue and reaps only when it is full;
// iodepth_batch_complete_min=1 and iodepth_batch_complete_max, which
// defaults to the min (fio's init.c), so each reap is io_getevents(ctx, 1,
// 1): sleep for one completion and take that one, then refill its slot,
// which keeps the queue at iodepth, and once nothing is left to submit one
// io_getevents waits for everything in flight; userspace_reap off (a reap is always
// the system call, never a read of the ring in user memory); EAGAIN from
// io_submit means reap first and submit again; the completion time is read
// once per reap. fio's vectored, nowait and cmdprio options are not read
// (off by default). Taking every waiting completion per call instead
// (nr=iodepth) measured 0.75x fio's IOPS on the test machine's virtio disk
// at QD16: the queue drained by 9-16 per reap and sat at 8-15 while the
// loop refilled it.
//
// On a buffered file the kernel does the page-cache copy inside io_submit
// and the I/O is complete when the call returns, but it is reaped only
// when the queue is full, as in fio: the depth distribution counts the
// I/Os submitted and not yet reaped, iodepth of them once the queue has
// filled, as fio's does; the submission latency is the copy and the
// completion latency the wait to be reaped.
//
// A workload that batches (SubmitBatch, LowWater, ReapMin, ReapPoll) runs
// fio's batching loop instead (batchloop.go): iocbs wait on a ring of
// iodepth entries, as in fio's libaio_data, and one io_submit takes them.
type libaioEngine struct{}

func (libaioEngine) name() Engine     { return EngineLibaio }
func (libaioEngine) queues() bool     { return true }
func (libaioEngine) available() error { return libaioProbe() }

// libaioSlot is one I/O in flight: its buffer stays put while the kernel
// owns it.
type libaioSlot struct {
	buf      []byte
	size     int   // of this I/O, at most len(buf)
	prepNs   int64 // when the I/O was set up
	submitNs int64 // when io_submit returned with it
	off      int64
	dir      int
}

// prepare sets up the worker's AIO context and fills its buffers before
// the workers start, so neither counts in the measured time. An AIO
// context belongs to the process, not to a thread, so unlike io_uring's
// ring it does not bind the goroutine to its thread (the runner locks it
// anyway for the thread's CPU time).
func (libaioEngine) prepare(w *worker) (issuer, error) {
	depth := w.spec.depth
	ctx, err := libaioSetup(depth)
	if err != nil {
		return nil, err
	}
	a := &libaioIssuer{ctx: ctx, iocbs: make([]libaioIOCB, depth), events: make([]libaioEvent, depth),
		slots: make([]libaioSlot, depth), pending: -1, rawSubmit: w.spec.Direct, reapMax: libaioReapMax}
	if n := w.spec.IODepthBatchCompleteMax; n > 0 {
		a.reapMax = min(n, depth) // a job file's iodepth_batch_complete_max
	}
	if a.batch = newBatchLoop(w.spec); a.batch != nil {
		a.queue = make([]*libaioIOCB, depth)
	}
	a.waitTS = unix.NsecToTimespec(int64(libaioWaitTimeout))
	data := w.dataRand()
	size := w.pattern.maxSize(w)
	for i := range a.slots {
		a.slots[i].buf = osio.AlignedBuffer(size)
		fillBuffer(a.slots[i].buf, w.spec.Buffer, data)
	}
	return a, nil
}

// libaioWaitTimeout bounds one io_getevents, made through RawSyscall for
// the reason uringWaitTimeout gives: the loop checks its context and
// deadline at least this often when the device is slow.
const libaioWaitTimeout = uringWaitTimeout

// libaioReapMax is how many completions one io_getevents takes: fio's
// iodepth_batch_complete_max, which defaults to iodepth_batch_complete_min,
// 1 (fio's init.c).
const libaioReapMax = 1

// libaioEagainLimit is how long io_submit may refuse with EAGAIN when
// nothing is in flight to reap before the worker gives up, as fio gives up
// after 30 s ("aio appears to be stalled").
const libaioEagainLimit = int64(30 * time.Second)

// libaioIssuer is one worker's AIO context and the state of its loop.
type libaioIssuer struct {
	ctx    uintptr
	iocbs  []libaioIOCB // one per slot; the kernel reads it in io_submit
	events []libaioEvent
	slots  []libaioSlot
	// iocbp is the one-entry array of iocb pointers io_submit reads.
	iocbp    [1]*libaioIOCB
	free     []int32 // stack of free slot indexes, free[:nFree]
	nFree    int
	inflight int   // I/Os the kernel took and the loop has not reaped
	pending  int32 // a slot io_submit refused with EAGAIN, to submit after a reap; -1: none
	eagainNs int64 // when io_submit began refusing with nothing in flight
	// rawSubmit: io_submit goes in through RawSyscall for direct I/O,
	// which queues the request and returns; a buffered io_submit does the
	// copy and may sleep in dirty-page throttling, so it goes through
	// Syscall and the scheduler may hand the processor on meanwhile.
	rawSubmit bool
	// reapMax is how many completions one io_getevents takes: libaioReapMax
	// or the job's iodepth_batch_complete_max.
	reapMax int
	fd      int32
	fds     []int32
	waitTS  unix.Timespec
	// batch runs fio's batching loop (batchloop.go) instead of run's own
	// when the workload batches; nil otherwise. queue is then fio's ring
	// of iocbs waiting for io_submit (struct libaio_data's iocbs, head,
	// tail and queued): queued of them from qTail on.
	batch  *batchLoop
	queue  []*libaioIOCB
	qHead  int
	qTail  int
	queued int
}

func (a *libaioIssuer) close() {
	if a.ctx != 0 {
		// io_destroy waits for anything still in flight, so no buffer of
		// a.slots is written after this returns.
		libaioDestroy(a.ctx)
		a.ctx = 0
	}
}

// run keeps iodepth I/Os in flight: each turn submits an I/O for every free
// slot, one io_submit each, then waits for one completion and reaps it, as
// fio's libaio loop does; at the end it waits for the rest in one call. One clock read per
// reap times every I/O it took, one after each io_submit stamps the I/O it
// submitted; nothing in the loop allocates.
func (a *libaioIssuer) run(w *worker) {
	depth := len(a.slots)
	a.free, a.nFree = make([]int32, depth), depth
	a.fd = int32(w.h.Fd())
	for _, h := range w.hs {
		a.fds = append(a.fds, int32(h.Fd())) // a volume's members, w.lun picks one
	}
	for i := range a.free {
		a.free[i] = int32(depth - 1 - i)
	}
	if a.batch != nil {
		a.batch.run(w, a)
		return
	}
	stopping := false
	now := w.now()
	if now >= w.nextEvent {
		stopping = w.tick(now)
	}
	for {
		if !stopping && !a.submitFree(w, now) {
			// Stop issuing, but reap what is in flight before returning:
			// the loop must not leave buffers the kernel still writes.
			stopping = true
		}
		if a.inflight == 0 {
			if stopping && a.pending >= 0 {
				// Refused with EAGAIN and never submitted.
				a.release(a.pending)
				a.pending = -1
			}
			if stopping || a.pending < 0 {
				return
			}
			// EAGAIN with nothing to reap: wait a little and submit
			// again, as fio does, still stopping when told to.
			time.Sleep(time.Microsecond)
			if now = w.now(); now >= w.nextEvent {
				stopping = w.tick(now)
			}
			continue
		}
		least, want := 1, a.reapMax
		if stopping || (w.remaining <= 0 && a.pending < 0) {
			// Nothing more to submit: fio waits for everything in
			// flight in one call (backend.c, at the end of do_io).
			least, want = a.inflight, a.inflight
		}
		n, ok := a.getEvents(w, least, want)
		if !ok {
			return // io_destroy in close waits for what is still in flight
		}
		now = w.now()
		if n > 0 {
			w.markReap(n)
			if !a.reap(w, n, now) {
				stopping = true
			}
		}
		if !stopping && (now >= w.nextEvent || w.remaining <= 0) {
			stopping = w.tick(now) || (w.remaining <= 0 && a.pending < 0)
		}
	}
}

// submitFree starts an I/O in every free slot, each with its own io_submit
// (fio's iodepth_batch_submit=1); false means io_submit failed and the
// worker's error says how. An I/O refused with EAGAIN (the kernel is short
// of AIO requests) stays pending: the loop reaps and submits it again.
func (a *libaioIssuer) submitFree(w *worker, now int64) bool {
	for {
		i := a.pending
		if i < 0 {
			if a.nFree == 0 || w.remaining <= 0 {
				return true
			}
			i = a.fillIOCB(w, now)
		}
		errno := a.submit(i)
		switch errno {
		case 0:
		case unix.EAGAIN:
			a.pending = i
			if a.inflight > 0 {
				a.eagainNs = 0
				return true
			}
			if a.stalled(w, errno) {
				return false
			}
			return true
		default:
			s := &a.slots[i]
			w.fail(fmt.Errorf("io_submit (%s %d bytes at offset %d): %w", dirNames[s.dir], s.size, s.off, errno))
			a.pending = -1
			a.release(i)
			return false
		}
		// Taken by the kernel: the submission latency ends here.
		w.markSubmit(1)
		now = w.now()
		a.slots[i].submitNs = now
		a.pending, a.eagainNs = -1, 0
		a.inflight++
		w.markDepth(a.inflight)
	}
}

// submit is io_submit(ctx, 1, {iocb of slot i}), retried on EINTR.
func (a *libaioIssuer) submit(i int32) unix.Errno {
	a.iocbp[0] = &a.iocbs[i]
	for {
		var n uintptr
		var errno unix.Errno
		if a.rawSubmit {
			n, _, errno = unix.RawSyscall(unix.SYS_IO_SUBMIT, a.ctx, 1, uintptr(unsafe.Pointer(&a.iocbp[0])))
		} else {
			n, _, errno = unix.Syscall(unix.SYS_IO_SUBMIT, a.ctx, 1, uintptr(unsafe.Pointer(&a.iocbp[0])))
		}
		switch {
		case errno == unix.EINTR:
			continue
		case errno != 0:
			return errno
		case n != 1:
			// io_submit took none and said nothing: as fio, try again.
			continue
		}
		return 0
	}
}

// fillIOCB draws the next I/O into a free slot and writes its iocb; it
// returns the slot. Every field of the iocb is written, so nothing a
// previous I/O left (the key the kernel writes back) reaches the kernel.
func (a *libaioIssuer) fillIOCB(w *worker, now int64) int32 {
	a.nFree--
	i := a.free[a.nFree]
	s := &a.slots[i]
	s.dir, s.off, s.size = w.pattern.next(w)
	if w.paused {
		// The pattern waited (an access specification's delay).
		now, w.paused = w.now(), false
	}
	s.prepNs, s.submitNs = now, now
	op := uint16(iocbCmdPread)
	if s.dir == dirWrite {
		op = iocbCmdPwrite
		if w.fill != nil {
			// fio fills the buffer before it starts the I/O's clock.
			w.refill(s.buf[:s.size])
			s.prepNs = w.now()
			s.submitNs = s.prepNs
		}
	}
	fd := a.fd
	if a.fds != nil {
		fd = a.fds[w.lun]
	}
	a.iocbs[i] = libaioIOCB{data: uint64(i), opcode: op, fildes: uint32(fd),
		buf: uint64(uintptr(unsafe.Pointer(unsafe.SliceData(s.buf)))), nbytes: uint64(s.size), offset: s.off}
	w.remaining--
	return i
}

// getEvents is io_getevents(ctx, least, want, events, timeout): it sleeps
// until least completions are there and takes up to want; both are 1 while the
// loop submits (fio's iodepth_batch_complete_min and _max), everything in
// flight once it has nothing left to submit. A wait that times out returns
// what had completed, maybe 0; false means the call failed.
func (a *libaioIssuer) getEvents(w *worker, least, want int) (int, bool) {
	for {
		n, _, errno := unix.RawSyscall6(unix.SYS_IO_GETEVENTS, a.ctx, uintptr(least), uintptr(want),
			uintptr(unsafe.Pointer(&a.events[0])), uintptr(unsafe.Pointer(&a.waitTS)), 0)
		switch errno {
		case 0:
			return int(n), true
		case unix.EINTR:
			continue
		}
		w.fail(fmt.Errorf("io_getevents: %w", errno))
		return 0, false
	}
}

// release puts slot i back on the free stack.
func (a *libaioIssuer) release(i int32) {
	a.free[a.nFree] = i
	a.nFree++
}

// reap counts the n completions io_getevents returned, timing each with
// t1; false means an I/O failed.
func (a *libaioIssuer) reap(w *worker, n int, t1 int64) bool {
	ok := true
	for k := range n {
		e := &a.events[k]
		i := int32(e.data)
		s := &a.slots[i]
		a.release(i)
		a.inflight--
		if e.res < 0 {
			w.fail(fmt.Errorf("%s %d bytes at offset %d: %w", dirNames[s.dir], s.size, s.off, unix.Errno(-e.res)))
			ok = false
			continue
		}
		if !w.complete(s.dir, int(e.res), s.size, s.off, s.prepNs, s.submitNs, t1) {
			ok = false
		}
	}
	return ok
}

// queueOne is fio_libaio_queue: the I/O's iocb goes on the ring at its
// head and waits there for commitQueued.
func (a *libaioIssuer) queueOne(w *worker, now int64) {
	i := a.fillIOCB(w, now)
	a.queue[a.qHead] = &a.iocbs[i]
	a.qHead = (a.qHead + 1) % len(a.queue)
	a.queued++
}

// taken is fio's cur_depth: every slot not on the free stack.
func (a *libaioIssuer) taken() int { return len(a.slots) - a.nFree }

// stalled keeps the clock of io_submit refusals (EAGAIN, ENOMEM) with
// nothing in flight to reap: the first starts it, and one past
// libaioEagainLimit fails the worker and returns true.
func (a *libaioIssuer) stalled(w *worker, errno error) bool {
	t := w.now()
	switch {
	case a.eagainNs == 0:
		a.eagainNs = t
	case t-a.eagainNs > libaioEagainLimit:
		w.fail(fmt.Errorf("io_submit: refused for 30 s with nothing in flight: %w", errno))
		return true
	}
	return false
}

// commitQueued is fio_libaio_commit: io_submit takes the queued iocbs
// from the ring's tail, no further than the ring's end in one call (so a
// batch that wraps is two calls, as in fio), and each submitted I/O's
// submission latency ends when the call returns (fio_libaio_queued).
// EAGAIN and ENOMEM leave the rest queued while I/Os are in flight to
// reap; with none in flight the loop asks again for up to 30 s.
func (a *libaioIssuer) commitQueued(w *worker) bool {
	for a.queued > 0 {
		nr := min(a.queued, len(a.queue)-a.qTail)
		n, errno := a.submitMany(a.queue[a.qTail : a.qTail+nr])
		switch {
		case errno == unix.EAGAIN || errno == unix.ENOMEM:
			if a.inflight > 0 {
				a.eagainNs = 0
				return true
			}
			if a.stalled(w, errno) {
				return false
			}
			time.Sleep(time.Microsecond)
			continue
		case errno != 0:
			s := &a.slots[a.queue[a.qTail].data]
			w.fail(fmt.Errorf("io_submit (%s %d bytes at offset %d): %w", dirNames[s.dir], s.size, s.off, errno))
			return false
		}
		w.markSubmit(n)
		if n == 0 {
			continue
		}
		now := w.now()
		for _, cb := range a.queue[a.qTail : a.qTail+n] {
			a.slots[cb.data].submitNs = now
		}
		a.eagainNs = 0
		a.queued -= n
		a.inflight += n
		a.qTail = (a.qTail + n) % len(a.queue)
	}
	return true
}

// submitMany is io_submit(ctx, len(cbs), cbs), retried on EINTR; it
// returns how many the kernel took.
func (a *libaioIssuer) submitMany(cbs []*libaioIOCB) (int, unix.Errno) {
	for {
		var n uintptr
		var errno unix.Errno
		if a.rawSubmit {
			n, _, errno = unix.RawSyscall(unix.SYS_IO_SUBMIT, a.ctx, uintptr(len(cbs)), uintptr(unsafe.Pointer(&cbs[0])))
		} else {
			n, _, errno = unix.Syscall(unix.SYS_IO_SUBMIT, a.ctx, uintptr(len(cbs)), uintptr(unsafe.Pointer(&cbs[0])))
		}
		if errno == unix.EINTR {
			continue
		}
		return int(n), errno
	}
}

// reapEvents is fio_libaio_getevents: one io_getevents(ctx, least, most)
// bounded by libaioWaitTimeout (least 0 returns at once), its
// completions timed with one clock read.
func (a *libaioIssuer) reapEvents(w *worker, least, most int) (n int, now int64, engineOK, ioOK bool) {
	n, ok := a.getEvents(w, least, most)
	now = w.now()
	if !ok {
		return 0, now, false, false
	}
	return n, now, true, n == 0 || a.reap(w, n, now)
}
