//go:build linux

package ioengine

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
	data   uint64 // aio_data: the unit's index, given back in io_event.data
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

// libaio is fio's libaio, Linux native AIO on raw system calls (no
// libaio.so, no cgo): io_setup(iodepth), io_submit for what is queued and
// io_getevents for completions, as fio 3.33's engines/libaio.c: Queue puts
// the unit's iocb on a ring of iodepth entries (struct libaio_data's
// iocbs, head, tail and queued), Commit submits from the ring's tail, no
// further than the ring's end in one call (so a batch that wraps is two
// calls, as in fio), and GetEvents is io_getevents(ctx, min, max) bounded
// by libaioWaitTimeout. userspace_reap is off (a reap is always the system
// call, never a read of the ring in user memory); fio's vectored, nowait
// and cmdprio options are not read (off by default). The core reaps one
// completion per call by default, as fio: taking every waiting completion
// per call instead (nr=iodepth) measured 0.75x fio's IOPS on the test
// machine's virtio disk at QD16: the queue drained by 9-16 per reap and sat
// at 8-15 while the loop refilled it.
//
// On a buffered file the kernel does the page-cache copy inside io_submit
// and the I/O is complete when the call returns, but it is reaped only
// when the queue is full, as in fio: the submission latency is the copy
// and the completion latency the wait to be reaped.
var libaio = &Driver{
	Name:      "libaio",
	Flags:     FlagQueues | FlagCommits,
	Available: libaioProbe,
	Open:      openLibaio,
}

func init() { Register(libaio) }

// libaioWaitTimeout bounds one io_getevents, made through RawSyscall for
// the reason uringWaitTimeout gives: the core checks its context and
// deadline at least this often when the device is slow.
const libaioWaitTimeout = 10 * time.Millisecond

// libaioEngine is one worker's AIO context. An AIO context belongs to the
// process, not to a thread, so unlike io_uring's ring it does not bind the
// goroutine to its thread.
type libaioEngine struct {
	ctx    uintptr
	iocbs  []libaioIOCB // one per unit index; the kernel reads it in io_submit
	units  []*Unit      // by index
	events []libaioEvent
	// queue is fio's ring of iocbs waiting for io_submit: queued of them
	// from qTail on.
	queue  []*libaioIOCB
	qHead  int
	qTail  int
	queued int
	// rawSubmit: io_submit goes in through RawSyscall for direct I/O,
	// which queues the request and returns; a buffered io_submit does the
	// copy and may sleep in dirty-page throttling, so it goes through
	// Syscall and the scheduler may hand the processor on meanwhile.
	rawSubmit bool
	files     []osio.File
	waitTS    unix.Timespec
}

func openLibaio(c Config) (Engine, error) {
	ctx, err := libaioSetup(c.Depth)
	if err != nil {
		return nil, err
	}
	a := &libaioEngine{ctx: ctx, iocbs: make([]libaioIOCB, c.Depth), units: make([]*Unit, c.Depth),
		events: make([]libaioEvent, c.Depth), queue: make([]*libaioIOCB, c.Depth), rawSubmit: c.Direct, files: c.Files}
	a.waitTS = unix.NsecToTimespec(int64(libaioWaitTimeout))
	return a, nil
}

// Close is io_destroy, which waits for anything still in flight, so no
// buffer is written after it returns.
func (a *libaioEngine) Close() error {
	if a.ctx != 0 {
		libaioDestroy(a.ctx)
		a.ctx = 0
	}
	return nil
}

// Queue is fio_libaio_queue: the unit's iocb goes on the ring at its head
// and waits there for Commit. Every field of the iocb is written, so
// nothing a previous I/O left (the key the kernel writes back) reaches the
// kernel. A sync is fsync(2) at once.
func (a *libaioEngine) Queue(u *Unit) Status {
	op := uint16(iocbCmdPread)
	switch u.Op {
	case Read:
	case Write:
		op = iocbCmdPwrite
	case Sync, Datasync:
		u.N, u.Err = 0, fileSync(a.files[u.File], u.Op)
		return Completed
	default:
		u.N, u.Err = 0, fmt.Errorf("ioengine libaio: %s: %w", u.Op, ErrNotSupported)
		return Completed
	}
	a.units[u.Index] = u
	cb := &a.iocbs[u.Index]
	*cb = libaioIOCB{data: uint64(u.Index), opcode: op, fildes: uint32(a.files[u.File].Fd()),
		buf: uint64(uintptr(unsafe.Pointer(unsafe.SliceData(u.Buf)))), nbytes: uint64(len(u.Buf)), offset: u.Off}
	a.queue[a.qHead] = cb
	a.qHead = (a.qHead + 1) % len(a.queue)
	a.queued++
	return Queued
}

// Commit is fio_libaio_commit: one io_submit of the queued iocbs from the
// ring's tail, up to its end. EAGAIN and ENOMEM leave them queued.
func (a *libaioEngine) Commit() (int, error) {
	if a.queued == 0 {
		return 0, nil
	}
	nr := min(a.queued, len(a.queue)-a.qTail)
	n, errno := a.submit(a.queue[a.qTail : a.qTail+nr])
	switch {
	case errno == unix.EAGAIN || errno == unix.ENOMEM:
		return 0, ErrAgain
	case errno != 0:
		u := a.units[a.queue[a.qTail].data]
		a.qTail, a.queued = a.qHead, 0
		return 0, fmt.Errorf("io_submit (%s %d bytes at offset %d): %w", u.Op, len(u.Buf), u.Off, errno)
	}
	a.queued -= n
	a.qTail = (a.qTail + n) % len(a.queue)
	return n, nil
}

// submit is io_submit(ctx, len(cbs), cbs), retried on EINTR; it returns
// how many the kernel took.
func (a *libaioEngine) submit(cbs []*libaioIOCB) (int, unix.Errno) {
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

// GetEvents is fio_libaio_getevents: io_getevents(ctx, min, max, events,
// timeout), which sleeps until min completions are there (not at all for
// min 0, at most libaioWaitTimeout) and takes up to max.
func (a *libaioEngine) GetEvents(min, max int) (int, error) {
	for {
		n, _, errno := unix.RawSyscall6(unix.SYS_IO_GETEVENTS, a.ctx, uintptr(min), uintptr(max),
			uintptr(unsafe.Pointer(&a.events[0])), uintptr(unsafe.Pointer(&a.waitTS)), 0)
		switch errno {
		case 0:
			a.results(int(n))
			return int(n), nil
		case unix.EINTR:
			continue
		}
		return 0, fmt.Errorf("io_getevents: %w", errno)
	}
}

// results sets the units of the first n events from their io_event.
func (a *libaioEngine) results(n int) {
	for k := range n {
		e := &a.events[k]
		u := a.units[e.data]
		if e.res < 0 {
			u.N, u.Err = 0, unix.Errno(-e.res)
			continue
		}
		u.N, u.Err = int(e.res), nil
	}
}

func (a *libaioEngine) Event(i int) *Unit { return a.units[a.events[i].data] }
