//go:build linux

package blockbench

import (
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/clydebench/clyde/internal/osio"
)

// io_uring ABI constants (include/uapi/linux/io_uring.h).
const (
	uringOffSQRing          = 0
	uringOffCQRing          = 0x8000000
	uringOffSQEs            = 0x10000000
	uringEnterGetEvents     = 1 << 0
	uringFeatSingleMmap     = 1 << 0
	uringFeatExtArg         = 1 << 8
	uringEnterExtArg        = 1 << 3
	uringSetupRDisabled     = 1 << 6
	uringSetupCoopTaskrun   = 1 << 8
	uringSetupSingleIssuer  = 1 << 12
	uringSetupDeferTaskrun  = 1 << 13
	uringRegisterEnableRing = 12
	uringOpNop              = 0
	uringOpRead             = 22
	uringOpWrite            = 23
	uringSQEAsync           = 1 << 4 // IOSQE_ASYNC
	uringSQESize            = 64
	uringCQESize            = 16
	uringParamsSize         = 120
)

type uringSQOffsets struct {
	head, tail, ringMask, ringEntries, flags, dropped, array, resv1 uint32
	userAddr                                                        uint64
}

type uringCQOffsets struct {
	head, tail, ringMask, ringEntries, overflow, cqes, flags, resv1 uint32
	userAddr                                                        uint64
}

// uringParams is struct io_uring_params.
type uringParams struct {
	sqEntries, cqEntries, flags, sqThreadCPU, sqThreadIdle, features, wqFd uint32
	resv                                                                   [3]uint32
	sqOff                                                                  uringSQOffsets
	cqOff                                                                  uringCQOffsets
}

// uringSQE is struct io_uring_sqe, with the fields clyde uses.
type uringSQE struct {
	opcode      uint8
	flags       uint8
	ioprio      uint16
	fd          int32
	off         uint64
	addr        uint64
	len         uint32
	rwFlags     uint32
	userData    uint64
	bufIndex    uint16
	personality uint16
	spliceFdIn  int32
	addr3       uint64
	pad2        uint64
}

// uringGeteventsArg is struct io_uring_getevents_arg, what io_uring_enter
// reads with IORING_ENTER_EXT_ARG: here only a timeout for the wait.
type uringGeteventsArg struct {
	sigmask     uint64
	sigmaskSz   uint32
	minWaitUsec uint32
	ts          uint64 // *unix.Timespec
}

// uringCQE is struct io_uring_cqe.
type uringCQE struct {
	userData uint64
	res      int32
	flags    uint32
}

// The layout is the kernel ABI; a wrong size would corrupt the rings.
var _ [uringSQESize - unsafe.Sizeof(uringSQE{})]struct{}
var _ [unsafe.Sizeof(uringSQE{}) - uringSQESize]struct{}
var _ [uringCQESize - unsafe.Sizeof(uringCQE{})]struct{}
var _ [unsafe.Sizeof(uringParams{}) - uringParamsSize]struct{}
var _ [24 - unsafe.Sizeof(uringGeteventsArg{})]struct{}
var _ [unsafe.Sizeof(uringGeteventsArg{}) - 24]struct{}
var _ [uringParamsSize - unsafe.Sizeof(uringParams{})]struct{}

// uring is one worker's ring: the shared SQ/CQ memory and the SQE array,
// mapped from the ring's descriptor.
type uring struct {
	fd      int
	sqMem   []byte
	cqMem   []byte // aliases sqMem with IORING_FEAT_SINGLE_MMAP
	sqeMem  []byte
	sqTail  *uint32
	sqMask  uint32
	sqes    []uringSQE
	cqHead  *uint32
	cqTail  *uint32
	cqMask  uint32
	cqes    []uringCQE
	entries uint32
	// flags is what the kernel accepted of uringSetupFlags, features what
	// it said it can do.
	flags    uint32
	features uint32
	// waitArg bounds every wait by waitTimeout (see enter); it points at
	// waitTS, which lives as long as the ring.
	waitArg uringGeteventsArg
	waitTS  unix.Timespec
	// slots are the I/Os the worker keeps in flight, one buffer each. They
	// live as long as the ring, so no buffer goes away while the kernel may
	// still write into it.
	slots []uringSlot
}

// uringSetupFlags are the flags fio 3.33+ sets on its own rings by default,
// so the two tools are compared on the same kind of ring, plus R_DISABLED:
//
//   - COOP_TASKRUN (5.19): a completion posted from io-wq or an interrupt does
//     not interrupt the submitting thread with an IPI; the thread runs it the
//     next time it enters the kernel, which the loop does at once.
//   - SINGLE_ISSUER (6.0): only one thread submits, so the kernel can skip
//     locking on the submission path.
//   - DEFER_TASKRUN (6.1, needs SINGLE_ISSUER): completions are queued on the
//     ring and posted only when the submitter asks for events, and a waiter
//     is woken once enough of them are queued for its min_complete, not once
//     per completion.
//   - R_DISABLED (5.10): the ring is created in runJob, where a failure is
//     reported before any worker starts, but SINGLE_ISSUER binds it to the
//     thread that enables it; the worker enables it from its locked thread.
//
// IORING_SETUP_SQPOLL, IOPOLL, registered files and registered buffers are
// left out: fio does not use them unless asked.
const uringSetupFlags = uringSetupCoopTaskrun | uringSetupSingleIssuer | uringSetupDeferTaskrun | uringSetupRDisabled

func setupRing(entries uint32) (*uring, error) {
	// A kernel that predates a flag refuses it with EINVAL; drop flags in
	// the order fio drops them (DEFER_TASKRUN with SINGLE_ISSUER, then
	// COOP_TASKRUN), then R_DISABLED, down to a plain ring.
	fallbacks := [...]uint32{
		uringSetupFlags,
		uringSetupCoopTaskrun | uringSetupRDisabled,
		uringSetupRDisabled,
		0,
	}
	var p uringParams
	var fd uintptr
	var errno unix.Errno
	for _, flags := range fallbacks {
		p = uringParams{flags: flags}
		fd, _, errno = unix.Syscall(unix.SYS_IO_URING_SETUP, uintptr(entries), uintptr(unsafe.Pointer(&p)), 0)
		if errno != unix.EINVAL {
			break
		}
	}
	if errno != 0 {
		return nil, fmt.Errorf("io_uring_setup(%d): %w", entries, errno)
	}
	r := &uring{fd: int(fd), entries: p.sqEntries, flags: p.flags, features: p.features}
	r.waitTS = unix.NsecToTimespec(int64(uringWaitTimeout))
	r.waitArg.ts = uint64(uintptr(unsafe.Pointer(&r.waitTS)))
	if err := r.mapRings(&p); err != nil {
		r.close()
		return nil, err
	}
	return r, nil
}

// enable starts a ring set up with R_DISABLED; with SINGLE_ISSUER the calling
// thread becomes the only one allowed to submit, so the caller must be locked
// to its OS thread.
func (r *uring) enable() error {
	if r.flags&uringSetupRDisabled == 0 {
		return nil
	}
	_, _, errno := unix.Syscall6(unix.SYS_IO_URING_REGISTER, uintptr(r.fd), uringRegisterEnableRing, 0, 0, 0, 0)
	if errno != 0 {
		return fmt.Errorf("io_uring_register(ENABLE_RINGS): %w", errno)
	}
	return nil
}

// uringStartTries bounds how many times startIOWorker asks for the thread's
// first io-wq worker. Each failed try cost the kernel four attempts to fork
// the worker, each with a signal pending on this thread.
const uringStartTries = 100

// startIOWorker makes the kernel start this thread's first io-wq worker
// before the measurement, with a no-op forced to io-wq (IOSQE_ASYNC), and
// waits until it did. The caller must be the thread that submits.
//
// This is the ECANCELED fix. A write the kernel cannot finish without
// blocking (a buffered write to a regular file, nearly always) goes to the
// submitting thread's io-wq, and the first one makes io-wq fork its first
// worker from that thread. The fork fails with ERESTARTNOINTR while a
// signal is pending on the thread, and Go sends its threads SIGURG all the
// time (sysmon preempting a goroutine that runs for 10 ms, which the
// RawSyscall loop always does; every GC's stack scans). io-wq retries three
// times, 5, 10 and 15 ms apart, and then cancels the work waiting for the
// worker: the write completes with -ECANCELED and nothing was written
// (io_uring/io-wq.c, io_should_retry_thread and create_worker_cont; kernel
// commit 13918315c5dc "io-wq: backoff when retrying worker creation" traces
// the same failure on signal 26, SIGURG, in a Go program). On a busy
// machine the thread waits for a CPU while the signal and the retry are both
// pending, and the retries run first. io-wq cancels only when no worker is
// left, and it never retires the last worker of a pool while the thread
// lives, so once this one is up no later I/O of the worker can be cancelled
// that way; here a cancelled try is simply asked again, outside the
// measured time. TestURingWritesSurviveSignals reproduced it.
func (r *uring) startIOWorker() error {
	for try := 1; ; try++ {
		tail := *r.sqTail
		r.sqes[tail&r.sqMask] = uringSQE{opcode: uringOpNop, flags: uringSQEAsync, userData: ^uint64(0)}
		atomic.StoreUint32(r.sqTail, tail+1)
		for submitted := false; !submitted; {
			n, err := r.enter(1, 0)
			if err != nil && err != unix.EAGAIN && err != unix.EBUSY {
				return fmt.Errorf("io_uring_enter (start io-wq): %w", err)
			}
			submitted = n == 1
		}
		for !r.cqReady() {
			if _, err := r.enter(0, 1); err != nil && err != unix.EAGAIN && err != unix.EBUSY {
				return fmt.Errorf("io_uring_enter (start io-wq): %w", err)
			}
		}
		head := *r.cqHead
		res := r.cqes[head&r.cqMask].res
		atomic.StoreUint32(r.cqHead, head+1)
		switch {
		case res == 0:
			return nil
		case res != -int32(unix.ECANCELED) || try == uringStartTries:
			return fmt.Errorf("start the io-wq worker (no-op, try %d): %w", try, unix.Errno(-res))
		}
	}
}

// setupIssuerRing is the ring a worker submits on, ready on the calling
// thread, which must be locked: set up, enabled for this thread and with its
// io-wq worker started.
func setupIssuerRing(entries uint32) (*uring, error) {
	r, err := setupRing(entries)
	if err != nil {
		return nil, err
	}
	if err := r.enable(); err != nil {
		r.close()
		return nil, err
	}
	if err := r.startIOWorker(); err != nil {
		r.close()
		return nil, err
	}
	return r, nil
}

func (r *uring) mapRings(p *uringParams) error {
	sqSize := int(p.sqOff.array + p.sqEntries*4)
	cqSize := int(p.cqOff.cqes + p.cqEntries*uringCQESize)
	single := p.features&uringFeatSingleMmap != 0
	if single {
		sqSize = max(sqSize, cqSize)
	}
	var err error
	prot, flags := unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_POPULATE
	if r.sqMem, err = unix.Mmap(r.fd, uringOffSQRing, sqSize, prot, flags); err != nil {
		return fmt.Errorf("mmap SQ ring: %w", err)
	}
	r.cqMem = r.sqMem
	if !single {
		if r.cqMem, err = unix.Mmap(r.fd, uringOffCQRing, cqSize, prot, flags); err != nil {
			return fmt.Errorf("mmap CQ ring: %w", err)
		}
	}
	if r.sqeMem, err = unix.Mmap(r.fd, uringOffSQEs, int(p.sqEntries)*uringSQESize, prot, flags); err != nil {
		return fmt.Errorf("mmap SQE array: %w", err)
	}
	r.sqTail = (*uint32)(unsafe.Pointer(&r.sqMem[p.sqOff.tail]))
	r.sqMask = *(*uint32)(unsafe.Pointer(&r.sqMem[p.sqOff.ringMask]))
	// The kernel reads SQE indexes from the array; clyde always fills SQEs in
	// ring order, so the array is the identity and is written once.
	array := unsafe.Slice((*uint32)(unsafe.Pointer(&r.sqMem[p.sqOff.array])), p.sqEntries)
	for i := range array {
		array[i] = uint32(i)
	}
	r.sqes = unsafe.Slice((*uringSQE)(unsafe.Pointer(&r.sqeMem[0])), p.sqEntries)
	r.cqHead = (*uint32)(unsafe.Pointer(&r.cqMem[p.cqOff.head]))
	r.cqTail = (*uint32)(unsafe.Pointer(&r.cqMem[p.cqOff.tail]))
	r.cqMask = *(*uint32)(unsafe.Pointer(&r.cqMem[p.cqOff.ringMask]))
	r.cqes = unsafe.Slice((*uringCQE)(unsafe.Pointer(&r.cqMem[p.cqOff.cqes])), p.cqEntries)
	return nil
}

func (r *uring) close() {
	if r.sqeMem != nil {
		_ = unix.Munmap(r.sqeMem)
	}
	if len(r.cqMem) > 0 && &r.cqMem[0] != &r.sqMem[0] {
		_ = unix.Munmap(r.cqMem)
	}
	if r.sqMem != nil {
		_ = unix.Munmap(r.sqMem)
	}
	r.sqMem, r.cqMem, r.sqeMem = nil, nil, nil
	if r.fd > 0 {
		_ = unix.Close(r.fd)
		r.fd = -1
	}
}

// uringWaitTimeout bounds one wait for completions made without telling the
// Go scheduler (see enter). A device that takes longer costs one more
// io_uring_enter per timeout. The rest of the program runs on a processor
// of its own (runJob reserves one per worker and one more), so only a
// stop-the-world (GC, which the loop's zero allocations make rare) waits for
// the worker's; it gets it when the wait returns. Without the spare processor
// (GOMAXPROCS=1 before the reservation), ^C still reached the context 12-18
// ms after the signal, when sysmon preempted the worker.
const uringWaitTimeout = 10 * time.Millisecond

// enter submits toSubmit SQEs and asks for events: with DEFER_TASKRUN that
// posts the completions queued for this ring, and it returns once at least
// minComplete are in the CQ ring (or, for a wait, after uringWaitTimeout).
// It returns how many SQEs the kernel took.
//
// Every call goes in through RawSyscall, which keeps the Go scheduler out of
// the loop. Syscall marks the thread as in a system call, and a wait for a
// completion usually outlasts the scheduler's 20 us threshold, so sysmon
// kept waking to take the worker's processor away and start another thread
// that found nothing to do: on the 2-CPU virtio test machine that was about
// 3,500 context switches a second beside 3,400 waits, and cost the loop 15%
// of its IOPS on a disk. A raw wait holds the processor instead, so it is
// bounded by uringWaitTimeout through IORING_ENTER_EXT_ARG (5.11); a kernel
// without EXT_ARG waits through Syscall, as before.
func (r *uring) enter(toSubmit, minComplete uint32) (int, error) {
	for {
		var n uintptr
		var errno unix.Errno
		switch {
		case minComplete == 0:
			n, _, errno = unix.RawSyscall6(unix.SYS_IO_URING_ENTER, uintptr(r.fd), uintptr(toSubmit), 0, uringEnterGetEvents, 0, 0)
		case r.features&uringFeatExtArg != 0:
			n, _, errno = unix.RawSyscall6(unix.SYS_IO_URING_ENTER, uintptr(r.fd), uintptr(toSubmit), uintptr(minComplete),
				uringEnterGetEvents|uringEnterExtArg, uintptr(unsafe.Pointer(&r.waitArg)), unsafe.Sizeof(r.waitArg))
			if errno == unix.ETIME {
				// The wait timed out and nothing was submitted; the
				// loop asks again.
				return 0, nil
			}
		default:
			n, _, errno = unix.Syscall6(unix.SYS_IO_URING_ENTER, uintptr(r.fd), uintptr(toSubmit), uintptr(minComplete), uringEnterGetEvents, 0, 0)
		}
		switch errno {
		case 0:
			return int(n), nil
		case unix.EINTR:
			continue
		}
		return 0, errno
	}
}

// cqReady says whether completions wait in the CQ ring. The load of the tail
// is an acquire: the CQEs before it are visible once it is.
func (r *uring) cqReady() bool {
	return atomic.LoadUint32(r.cqTail) != *r.cqHead
}

var uringProbe = sync.OnceValue(func() error {
	r, err := setupRing(1)
	if err != nil {
		if errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EPERM) {
			return fmt.Errorf("io_uring is not available here (disabled or too old a kernel): %w", err)
		}
		return err
	}
	r.close()
	return nil
})

// uringEngine is io_uring, on raw system calls (no liburing): iodepth I/Os
// in flight per worker, on a ring set up with fio's flags. Named as fio's
// engine with the workload's batching knobs, it runs fio's batching loop
// (batchloop.go): SQEs wait in the SQ ring and one io_uring_enter takes
// them.
type uringEngine struct{}

func (uringEngine) name() Engine     { return EngineIOUring }
func (uringEngine) queues() bool     { return true }
func (uringEngine) available() error { return uringProbe() }

// uringSlot is one I/O in flight: its buffer stays put while the kernel owns it.
type uringSlot struct {
	buf      []byte
	size     int   // of this I/O, at most len(buf)
	prepNs   int64 // when the I/O was set up
	submitNs int64 // when io_uring_enter took it
	off      int64
	dir      int
}

// prepare creates the worker's ring and fills its buffers before the
// workers start, so neither counts in the measured time. The goroutine
// stays on one OS thread from here on: SINGLE_ISSUER refuses submissions
// from any other thread, io_uring runs completion work and keeps its io-wq
// workers per submitting thread (a goroutine that wandered between threads
// would get a pool of io-wq workers on each), and the thread's CPU time is
// the worker's own. It is never unlocked, so the thread, and its io-wq
// workers, end with the goroutine.
func (uringEngine) prepare(w *worker) (issuer, error) {
	runtime.LockOSThread()
	r, err := setupIssuerRing(uint32(w.spec.depth))
	if err != nil {
		return nil, err
	}
	r.slots = make([]uringSlot, w.spec.depth)
	data := w.dataRand()
	size := w.pattern.maxSize(w)
	for i := range r.slots {
		r.slots[i].buf = osio.AlignedBuffer(size)
		fillBuffer(r.slots[i].buf, w.spec.Buffer, data)
	}
	return &uringIssuer{ring: r, reapMax: uringReapMax(w.spec), batch: newBatchLoop(w.spec)}, nil
}

// uringPolls is how many more times the loop asks for completions without
// sleeping before it sleeps for one. Two measured best on tmpfs QD32 against
// zero, one, three and sixteen when the loop submitted in batches; with one
// submission per I/O, zero to four measured alike, within the noise, on
// tmpfs and on the disk. It is a bounded poll from the submitting thread, not
// SQPOLL: no kernel thread spins.
const uringPolls = 2

// uringIssuer is one worker's ring and the state of its loop: the slots and
// the stack of free ones.
type uringIssuer struct {
	ring     *uring
	free     []int32 // stack of free slot indexes, free[:nFree]
	nFree    int
	inflight int
	pending  uint32 // SQEs published in the tail but not yet taken by the kernel
	tail     uint32 // SQ tail, owned by this thread
	fd       int32
	fds      []int32
	// reapMax is how many completions one reap takes: fio's
	// iodepth_batch_complete_max (1 by default) when io_uring was asked for
	// by name, as fio's engine; 0 takes every one waiting (reapWaiting),
	// the loop auto runs (see uringReapMax).
	reapMax int
	// batch runs fio's batching loop (batchloop.go) instead of run's own
	// when the workload batches; nil otherwise.
	batch *batchLoop
}

func (u *uringIssuer) close() {
	if u.ring != nil {
		u.ring.close()
		u.ring = nil
	}
}

// run keeps iodepth I/Os in flight: each turn submits an I/O for every free
// slot, one io_uring_enter each, then reaps (fioReap or reapWaiting). One
// clock read per reap times every I/O reaped in it, and one after each
// submission stamps the I/O it submitted; nothing in the loop allocates.
func (u *uringIssuer) run(w *worker) {
	r := u.ring
	depth := len(r.slots)
	u.free, u.nFree = make([]int32, depth), depth
	u.fd, u.tail = int32(w.h.Fd()), *r.sqTail
	for _, h := range w.hs {
		u.fds = append(u.fds, int32(h.Fd())) // a volume's members, w.lun picks one
	}
	for i := range u.free {
		u.free[i] = int32(depth - 1 - i)
	}
	if u.batch != nil {
		u.batch.run(w, u)
		return
	}
	stopping := false
	now := w.now()
	if now >= w.nextEvent {
		stopping = w.tick(now)
	}
	for {
		if !stopping && !u.submitFree(w, now) {
			return
		}
		if u.inflight == 0 {
			return
		}
		var ringOK, ok bool
		if u.reapMax > 0 {
			// fio waits for everything in flight in one call once
			// nothing is left to submit (backend.c, at the end of do_io);
			// a queue that filled with the last I/O is first reaped by
			// one, as fio's loop reaps a full queue before it checks what
			// is left.
			drain := stopping || (w.remaining <= 0 && u.nFree > 0)
			now, ringOK, ok = u.fioReap(w, drain)
		} else {
			now, ringOK, ok = u.reapWaiting(w)
		}
		if !ringOK {
			return
		}
		if !ok {
			// Stop issuing, but reap what is in flight before returning:
			// the kernel would otherwise still write into buffers the
			// loop no longer holds.
			stopping = true
		}
		if !stopping && (now >= w.nextEvent || w.remaining <= 0) {
			stopping = w.tick(now) || w.remaining <= 0
		}
	}
}

// fioReap is fio's default reap (fio 3.33's wait_for_completions and
// engines/io_uring.c's fio_ioring_getevents with iodepth_batch_complete_min=1
// and iodepth_batch_complete_max, which defaults to the min): take one
// completion from the CQ ring (up to reapMax), and when it holds none, sleep
// in io_uring_enter until one is there; the slot it frees is refilled before
// the next reap, so the queue stays at iodepth. The rest of what the ring
// holds waits there, counted in flight, as in fio. drain takes everything in
// flight in one reap instead, as fio's last io_u_queued_complete does. It
// returns the time the reap was timed with, whether the ring works and
// whether every I/O reaped succeeded.
func (u *uringIssuer) fioReap(w *worker, drain bool) (now int64, ringOK, ioOK bool) {
	r := u.ring
	least, want := 1, u.reapMax
	if drain {
		least, want = u.inflight, u.inflight
	}
	for {
		ready := int(atomic.LoadUint32(r.cqTail) - *r.cqHead)
		if ready >= least {
			break
		}
		if !u.enter(w, uint32(least-ready)) {
			return w.now(), false, false
		}
		if !drain {
			// A wait that timed out (a slow device) goes back to the
			// loop, which checks its deadline; the next turn waits again.
			break
		}
	}
	now = w.now()
	return now, true, u.reapMarked(w, want, now)
}

// reapWaiting is auto's reap: every completion the CQ ring holds (returns
// as fioReap).
// Each submission also posted the completions the kernel held
// (DEFER_TASKRUN keeps them until asked). When none are there, it asks again
// without sleeping up to uringPolls times, and only then sleeps until one
// arrives. Sleeping at once measured slower: the loop comes back within a
// microsecond, finds the ring empty far more often than fio's slower loop
// does, and each sleep costs a wake-up of this thread and usually a
// preemption of the io-wq worker doing the reads.
func (u *uringIssuer) reapWaiting(w *worker) (now int64, ringOK, ioOK bool) {
	r := u.ring
	for k := 0; k < uringPolls && !r.cqReady(); k++ {
		if !u.enter(w, 0) {
			return w.now(), false, false
		}
	}
	if !r.cqReady() && !u.enter(w, 1) {
		return w.now(), false, false
	}
	now = w.now()
	return now, true, u.reapMarked(w, len(r.slots), now)
}

// enter submits the pending SQEs and asks for completions; false means the
// ring failed and the worker's error says how. EAGAIN and EBUSY (the kernel
// is short of request memory or the CQ ring is full) are not failures: the
// next turn reaps and tries again.
func (u *uringIssuer) enter(w *worker, minComplete uint32) bool {
	n, err := u.ring.enter(u.pending, minComplete)
	if err != nil && err != unix.EAGAIN && err != unix.EBUSY {
		w.fail(fmt.Errorf("io_uring_enter: %w", err))
		return false
	}
	if u.pending > 0 && err == nil {
		w.markSubmit(n)
	}
	u.pending -= uint32(n)
	return true
}

// submitFree starts an I/O in every free slot, each with its own
// io_uring_enter, as fio does by default (iodepth_batch_submit=1); false
// means the ring failed. Submitting them all in one call costs fewer system
// calls, but the block layer then plugs the batch and the device sees
// nothing until the last SQE is in: a device that works through requests in
// order sits idle meanwhile. On the virtio disk of the test machine the
// single batch reached 0.8x fio's IOPS at QD32 and one I/O per call 1.0x.
// When the kernel leaves an SQE in the ring (EAGAIN, EBUSY), the loop reaps
// first and submits it on the next call.
func (u *uringIssuer) submitFree(w *worker, now int64) bool {
	for u.pending == 0 && u.nFree > 0 && w.remaining > 0 {
		i := u.fillSQE(w, now)
		w.markDepth(u.inflight)
		if !u.enter(w, 0) {
			return false
		}
		if u.pending == 0 {
			// Taken by the kernel: the submission latency ends here.
			now = w.now()
			u.ring.slots[i].submitNs = now
		}
	}
	return true
}

// fillSQE writes the SQE for one free slot and publishes it with a release
// store of the SQ tail; it returns the slot. Every field of the SQE is
// written, so nothing a previous I/O left (ioprio, rw_flags, buf_index,
// personality, splice_fd_in) reaches the kernel.
func (u *uringIssuer) fillSQE(w *worker, now int64) int32 {
	r := u.ring
	u.nFree--
	i := u.free[u.nFree]
	s := &r.slots[i]
	s.dir, s.off, s.size = w.pattern.next(w)
	if w.paused {
		// The pattern waited (an access specification's delay).
		now, w.paused = w.now(), false
	}
	s.prepNs, s.submitNs = now, now
	op := uint8(uringOpRead)
	if s.dir == dirWrite {
		op = uringOpWrite
		if w.fill != nil {
			// fio fills the buffer before it starts the I/O's clock.
			w.refill(s.buf[:s.size])
			s.prepNs = w.now()
			s.submitNs = s.prepNs
		}
	}
	fd := u.fd
	if u.fds != nil {
		fd = u.fds[w.lun]
	}
	r.sqes[u.tail&r.sqMask] = uringSQE{opcode: op, fd: fd, off: uint64(s.off),
		addr: uint64(uintptr(unsafe.Pointer(unsafe.SliceData(s.buf)))), len: uint32(s.size), userData: uint64(i)}
	u.tail++
	u.pending++
	u.inflight++
	w.remaining--
	atomic.StoreUint32(r.sqTail, u.tail)
	return i
}

// reapMarked is reap counted as one reap call.
func (u *uringIssuer) reapMarked(w *worker, most int, t1 int64) bool {
	n, ok := u.reap(w, most, t1)
	if n > 0 {
		w.markReap(n)
	}
	return ok
}

// reap takes up to most completions off the CQ ring, timing each with t1;
// it returns how many it took and false when an I/O failed.
func (u *uringIssuer) reap(w *worker, most int, t1 int64) (int, bool) {
	r := u.ring
	head := *r.cqHead
	tail := atomic.LoadUint32(r.cqTail)
	if int(tail-head) > most {
		tail = head + uint32(most)
	}
	if head == tail {
		return 0, true
	}
	ok := true
	n := int(tail - head)
	for ; head != tail; head++ {
		c := &r.cqes[head&r.cqMask]
		i := int32(c.userData)
		res := c.res
		s := &r.slots[i]
		u.free[u.nFree] = i
		u.nFree++
		u.inflight--
		if res < 0 {
			w.fail(fmt.Errorf("%s %d bytes at offset %d: %w", dirNames[s.dir], s.size, s.off, unix.Errno(-res)))
			ok = false
			continue
		}
		if !w.complete(s.dir, int(res), s.size, s.off, s.prepNs, s.submitNs, t1) {
			ok = false
		}
	}
	// The release store hands the CQEs read above back to the kernel.
	atomic.StoreUint32(r.cqHead, head)
	return n, ok
}

// queueOne is fio_ioring_queue: the I/O's SQE is published in the SQ ring
// and waits there for commitQueued.
func (u *uringIssuer) queueOne(w *worker, now int64) { u.fillSQE(w, now) }

// taken is fio's cur_depth: every slot not on the free stack.
func (u *uringIssuer) taken() int { return u.inflight }

// commitQueued is fio_ioring_commit: one io_uring_enter submits every
// SQE published (again for what the kernel left), and each submitted
// I/O's submission latency ends when it returns (fio_ioring_queued). EAGAIN
// and EBUSY leave the rest for the next commit while I/Os are in flight to
// reap; with none in flight the loop asks again at once, as fio does.
func (u *uringIssuer) commitQueued(w *worker) bool {
	r := u.ring
	for u.pending > 0 {
		start := u.tail - u.pending
		n, err := r.enter(u.pending, 0)
		switch {
		case err == unix.EAGAIN || err == unix.EBUSY:
			if int(u.pending) < u.inflight {
				return true
			}
			continue
		case err != nil:
			w.fail(fmt.Errorf("io_uring_enter: %w", err))
			return false
		}
		w.markSubmit(n)
		if n == 0 {
			continue
		}
		now := w.now()
		for k := range uint32(n) {
			r.slots[r.sqes[(start+k)&r.sqMask].userData].submitNs = now
		}
		u.pending -= uint32(n)
	}
	return true
}

// reapEvents is fio_ioring_getevents: take what the CQ ring holds, up to
// most; when it holds none, one io_uring_enter waits for least (bounded by
// uringWaitTimeout; least 0 only asks the kernel to post what it has) and
// what it brought is taken.
func (u *uringIssuer) reapEvents(w *worker, least, most int) (n int, now int64, engineOK, ioOK bool) {
	r := u.ring
	if !r.cqReady() {
		if _, err := r.enter(0, uint32(least)); err != nil && err != unix.EAGAIN && err != unix.EBUSY {
			w.fail(fmt.Errorf("io_uring_enter: %w", err))
			return 0, w.now(), false, false
		}
	}
	now = w.now()
	n, ioOK = u.reap(w, most, now)
	return n, now, true, ioOK
}

// uringAvailable says whether this kernel lets clyde set up a ring.
func uringAvailable() error { return uringProbe() }

// uringFioReapMax is fio's iodepth_batch_complete_max by default: it
// defaults to iodepth_batch_complete_min, 1 (fio's init.c and options.c).
const uringFioReapMax = 1

// echoOption records the reap policy auto runs io_uring with, by fio's
// name: every waiting completion, up to the depth, per reap
// (iodepth_batch_complete_max=iodepth), where io_uring named as fio's
// engine reaps as fio does and needs no word.
func (uringEngine) echoOption(w *workload) (string, string, bool) {
	if uringReapMax(w) != 0 {
		return "", "", false
	}
	return "iodepth_batch_complete_max", strconv.Itoa(w.depth), true
}

// uringReapMax is the reap policy of a workload: fio's (one completion per
// reap, or iodepth_batch_complete_max) when io_uring was named, as a job
// file or --ioengine io_uring names fio's engine; every waiting completion
// under auto.
func uringReapMax(w *workload) int {
	switch {
	case w.IOEngine != EngineIOUring:
		return 0
	case w.IODepthBatchCompleteMax > 0:
		return min(w.IODepthBatchCompleteMax, w.depth)
	}
	return uringFioReapMax
}
