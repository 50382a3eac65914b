//go:build linux

package ioengine

import (
	"errors"
	"fmt"
	"runtime"
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

// uring is io_uring, on raw system calls (no liburing): iodepth units in
// flight per worker, on a ring set up with fio's flags. Queue writes a
// unit's SQE into the SQ ring and Commit submits what is there with one
// io_uring_enter (fio_ioring_queue and fio_ioring_commit); GetEvents takes
// completions off the CQ ring, waiting in io_uring_enter when it holds
// fewer than asked. Named as fio's engine it reaps one completion per reap,
// as fio; under auto every one waiting, after asking uringPolls times
// without sleeping (FlagReapsAllUnderAuto, Config.Auto).
var uringDriver = &Driver{
	Name:      "io_uring",
	Flags:     FlagQueues | FlagCommits | FlagReapsAllUnderAuto,
	Available: uringProbe,
	Open:      openURing,
}

func init() { Register(uringDriver) }

// uringPolls is how many more times GetEvents asks for completions without
// sleeping before it sleeps for one, under auto. Two measured best on tmpfs
// QD32 against zero, one, three and sixteen when the loop submitted in
// batches; with one submission per I/O, zero to four measured alike,
// within the noise, on tmpfs and on the disk. It is a bounded poll from the
// submitting thread, not SQPOLL: no kernel thread spins. Sleeping at once
// measured slower: the loop comes back within a microsecond, finds the
// ring empty far more often than fio's slower loop does, and each sleep
// costs a wake-up of this thread and usually a preemption of the io-wq
// worker doing the reads.
const uringPolls = 2

// uringEngine is one worker's ring and what it has queued.
type uringEngine struct {
	ring    *uring
	units   []*Unit // by index: a CQE's user_data
	events  []*Unit // what the last GetEvents took
	pending uint32  // SQEs published in the tail but not yet taken by the kernel
	tail    uint32  // SQ tail, owned by this thread
	polls   int
	fds     []int32
	files   []osio.File
}

// openURing creates the worker's ring before the workers start, so it does
// not count in the measured time. The goroutine stays on one OS thread from
// here on: SINGLE_ISSUER refuses submissions from any other thread,
// io_uring runs completion work and keeps its io-wq workers per submitting
// thread (a goroutine that wandered between threads would get a pool of
// io-wq workers on each), and the thread's CPU time is the worker's own. It
// is never unlocked, so the thread, and its io-wq workers, end with the
// goroutine.
func openURing(c Config) (Engine, error) {
	runtime.LockOSThread()
	r, err := setupIssuerRing(uint32(c.Depth))
	if err != nil {
		return nil, err
	}
	u := &uringEngine{ring: r, units: make([]*Unit, c.Depth), events: make([]*Unit, 0, c.Depth), tail: *r.sqTail, files: c.Files}
	if c.Auto {
		u.polls = uringPolls
	}
	for _, f := range c.Files {
		u.fds = append(u.fds, int32(f.Fd()))
	}
	return u, nil
}

func (u *uringEngine) Close() error {
	if u.ring != nil {
		u.ring.close()
		u.ring = nil
	}
	return nil
}

// Queue is fio_ioring_queue: the unit's SQE is published in the SQ ring
// with a release store of the tail and waits there for Commit. Every field
// of the SQE is written, so nothing a previous I/O left (ioprio, rw_flags,
// buf_index, personality, splice_fd_in) reaches the kernel. A sync is
// fsync(2) at once.
func (u *uringEngine) Queue(un *Unit) Status {
	op := uint8(uringOpRead)
	switch un.Op {
	case Read:
	case Write:
		op = uringOpWrite
	case Sync, Datasync:
		un.N, un.Err = 0, fileSync(u.files[un.File], un.Op)
		return Completed
	default:
		un.N, un.Err = 0, fmt.Errorf("ioengine io_uring: %s: %w", un.Op, ErrNotSupported)
		return Completed
	}
	r := u.ring
	u.units[un.Index] = un
	r.sqes[u.tail&r.sqMask] = uringSQE{opcode: op, fd: u.fds[un.File], off: uint64(un.Off),
		addr: uint64(uintptr(unsafe.Pointer(unsafe.SliceData(un.Buf)))), len: uint32(len(un.Buf)), userData: uint64(un.Index)}
	u.tail++
	u.pending++
	atomic.StoreUint32(r.sqTail, u.tail)
	return Queued
}

// Commit is fio_ioring_commit: one io_uring_enter submits the SQEs
// published (again for what the kernel left). EAGAIN and EBUSY (the kernel
// is short of request memory or the CQ ring is full) leave them for the
// next commit.
func (u *uringEngine) Commit() (int, error) {
	if u.pending == 0 {
		return 0, nil
	}
	n, err := u.ring.enter(u.pending, 0)
	switch {
	case err == unix.EAGAIN || err == unix.EBUSY:
		return 0, ErrAgain
	case err != nil:
		u.pending = 0
		return 0, fmt.Errorf("io_uring_enter: %w", err)
	}
	u.pending -= uint32(n)
	return n, nil
}

// GetEvents is fio_ioring_getevents: when the CQ ring holds fewer than min
// completions (or none), io_uring_enter waits for them (bounded by
// uringWaitTimeout; under auto after asking polls times without sleeping);
// then up to max are taken.
func (u *uringEngine) GetEvents(min, max int) (int, error) {
	r := u.ring
	for k := 0; k < u.polls && min > 0 && !r.cqReady(); k++ {
		if err := u.ask(0); err != nil {
			return 0, err
		}
	}
	// With none ready, an ask for min 0 does not wait but runs the task
	// work that posts what has completed (DEFER_TASKRUN keeps it until
	// asked).
	if ready := int(atomic.LoadUint32(r.cqTail) - *r.cqHead); ready < min || ready == 0 {
		if err := u.ask(uint32(min)); err != nil {
			return 0, err
		}
	}
	return u.take(max), nil
}

// ask is io_uring_enter for minComplete completions; EAGAIN and EBUSY are
// not failures (the next call asks again).
func (u *uringEngine) ask(minComplete uint32) error {
	if _, err := u.ring.enter(0, minComplete); err != nil && err != unix.EAGAIN && err != unix.EBUSY {
		return fmt.Errorf("io_uring_enter: %w", err)
	}
	return nil
}

// take takes up to most completions off the CQ ring into events.
func (u *uringEngine) take(most int) int {
	r := u.ring
	head := *r.cqHead
	tail := atomic.LoadUint32(r.cqTail)
	if int(tail-head) > most {
		tail = head + uint32(most)
	}
	u.events = u.events[:0]
	for ; head != tail; head++ {
		c := &r.cqes[head&r.cqMask]
		un := u.units[c.userData]
		un.N, un.Err = int(c.res), nil
		if c.res < 0 {
			un.N, un.Err = 0, unix.Errno(-c.res)
		}
		u.events = append(u.events, un)
	}
	// The release store hands the CQEs read above back to the kernel.
	atomic.StoreUint32(r.cqHead, head)
	return len(u.events)
}

func (u *uringEngine) Event(i int) *Unit { return u.events[i] }
