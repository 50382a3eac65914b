//go:build windows

package blockbench

import (
	"fmt"
	"runtime"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"

	"github.com/clydebench/clyde/internal/osio"
)

// windowsAIOEngine is fio's windowsaio and DiskSpd's way of queueing: each
// worker's handle is opened for overlapped I/O and bound to an I/O
// completion port of its own; the worker keeps iodepth ReadFile/WriteFile
// calls in flight, each with its own OVERLAPPED and buffer, and reaps their
// completions in batches with GetQueuedCompletionStatusEx.
type windowsAIOEngine struct{}

// The loop calls kernel32 through syscall.SyscallN directly: the errors
// come back as syscall.Errno, never boxed into an error (which allocates),
// and ReadFile and WriteFile take no byte count, as Microsoft asks of
// overlapped calls (x/sys's wrappers need one under the race detector).
var (
	kernel32                        = windows.NewLazySystemDLL("kernel32.dll")
	procGetQueuedCompletionStatusEx = kernel32.NewProc("GetQueuedCompletionStatusEx")
	procReadFile                    = kernel32.NewProc("ReadFile")
	procWriteFile                   = kernel32.NewProc("WriteFile")
)

func (windowsAIOEngine) name() Engine { return EngineWindowsAIO }
func (windowsAIOEngine) queues() bool { return true }
func (windowsAIOEngine) available() error {
	for _, p := range []*windows.LazyProc{procGetQueuedCompletionStatusEx, procReadFile, procWriteFile} {
		if err := p.Find(); err != nil {
			return err
		}
	}
	return nil
}
func (windowsAIOEngine) openFlags() osio.Flag { return osio.Overlapped }

// aioSlot is one I/O in flight. Its OVERLAPPED and buffer stay put, and
// alive, while Windows owns them: the slots live as long as the issuer, and
// close waits for every I/O it cancels.
type aioSlot struct {
	ov       windows.Overlapped
	buf      []byte
	size     int
	off      int64
	dir      int
	prepNs   int64
	submitNs int64
}

// overlappedEntry is OVERLAPPED_ENTRY.
type overlappedEntry struct {
	key      uintptr
	ov       *windows.Overlapped
	internal uintptr
	bytes    uint32
}

// aioWaitTimeout bounds one wait for completions, so the loop looks at its
// deadline and context at least that often while a device is slow.
const aioWaitTimeout = 10 * time.Millisecond

// statusEndOfFile is STATUS_END_OF_FILE: a read at or past the end of the
// file, which is 0 bytes (a short I/O), not a failure.
const statusEndOfFile = 0xC0000011

type aioIssuer struct {
	port    windows.Handle
	h       windows.Handle
	slots   []aioSlot
	base    uintptr // address of slots[0], to find a completion's slot
	free    []int32 // stack of free slot indexes, free[:nFree]
	nFree   int
	entries []overlappedEntry
	got     uint32
	// inflight counts the I/Os submitted and not yet reaped; highWater is
	// the most there ever were, which the tests hold to the depth.
	inflight  int
	highWater int
}

// prepare binds the worker's overlapped handle to a new completion port
// and fills one buffer per slot, before the workers start.
func (windowsAIOEngine) prepare(w *worker) (issuer, error) {
	h := w.h.Handle()
	port, err := windows.CreateIoCompletionPort(h, 0, 0, 1)
	if err != nil {
		return nil, fmt.Errorf("CreateIoCompletionPort: %w", err)
	}
	depth := w.spec.depth
	a := &aioIssuer{port: port, h: h, slots: make([]aioSlot, depth), free: make([]int32, depth), nFree: depth,
		entries: make([]overlappedEntry, depth)}
	data := w.dataRand()
	size := w.pattern.maxSize(w)
	for i := range a.slots {
		a.slots[i].buf = osio.AlignedBuffer(size)
		fillBuffer(a.slots[i].buf, w.spec.Buffer, data)
		a.free[i] = int32(depth - 1 - i)
	}
	a.base = uintptr(unsafe.Pointer(&a.slots[0]))
	return a, nil
}

// run keeps iodepth I/Os in flight: each turn starts an I/O in every free
// slot, then waits for at least one completion and reaps every one that is
// there. One clock read per turn times every I/O reaped in it, and one after
// each submission stamps it; nothing in the loop allocates.
func (a *aioIssuer) run(w *worker) {
	stopping := false
	now := w.now()
	if now >= w.nextEvent {
		stopping = w.tick(now)
	}
	for {
		if !stopping && !a.submitFree(w, now) {
			stopping = true
		}
		if a.inflight == 0 {
			return
		}
		n, ok := a.wait(w)
		if !ok {
			return // close cancels and waits for what is in flight
		}
		now = w.now()
		if n > 0 && !a.reap(w, n, now) {
			// Stop issuing, but reap what is in flight before returning.
			stopping = true
		}
		if !stopping && (now >= w.nextEvent || w.remaining <= 0) {
			stopping = w.tick(now) || w.remaining <= 0
		}
	}
}

// submitFree starts an I/O in every free slot; false means one failed at
// submission and the worker's error says how.
func (a *aioIssuer) submitFree(w *worker, now int64) bool {
	for a.nFree > 0 && w.remaining > 0 {
		a.nFree--
		i := a.free[a.nFree]
		s := &a.slots[i]
		s.dir, s.off, s.size = w.pattern.next(w)
		s.prepNs, s.submitNs = now, now
		s.ov = windows.Overlapped{Offset: uint32(s.off), OffsetHigh: uint32(s.off >> 32)}
		proc := procReadFile
		if s.dir == dirWrite {
			proc = procWriteFile
		}
		var err syscall.Errno
		if r, _, e := syscall.SyscallN(proc.Addr(), uintptr(a.h), uintptr(unsafe.Pointer(unsafe.SliceData(s.buf))), uintptr(s.size), 0,
			uintptr(unsafe.Pointer(&s.ov))); r == 0 {
			err = e
		}
		w.remaining--
		switch err {
		case 0, windows.ERROR_IO_PENDING:
			// Done at once or queued: either way a completion packet
			// comes to the port, and the slot is Windows' until then.
			a.inflight++
			a.highWater = max(a.highWater, a.inflight)
			now = w.now()
			s.submitNs = now
		case windows.ERROR_HANDLE_EOF:
			// Refused at submission, so no packet comes: a read past
			// the end, 0 bytes.
			a.free[a.nFree] = i
			a.nFree++
			now = w.now()
			if !w.complete(s.dir, 0, s.size, s.off, s.prepNs, now, now) {
				return false
			}
		default:
			a.free[a.nFree] = i
			a.nFree++
			w.fail(fmt.Errorf("%s %d bytes at offset %d: %w", dirNames[s.dir], s.size, s.off, err))
			return false
		}
	}
	return true
}

// wait takes up to a slot's worth of completions off the port, waiting at
// most aioWaitTimeout for the first; false means the port failed.
func (a *aioIssuer) wait(w *worker) (int, bool) {
	r, _, e := syscall.SyscallN(procGetQueuedCompletionStatusEx.Addr(), uintptr(a.port), uintptr(unsafe.Pointer(&a.entries[0])),
		uintptr(len(a.entries)), uintptr(unsafe.Pointer(&a.got)), uintptr(aioWaitTimeout/time.Millisecond), 0)
	if r != 0 {
		return int(a.got), true
	}
	if e == syscall.Errno(windows.WAIT_TIMEOUT) {
		return 0, true
	}
	w.fail(fmt.Errorf("GetQueuedCompletionStatusEx: %w", e))
	return 0, false
}

// reap counts the n completions wait took, timing each with t1; false
// means an I/O failed.
func (a *aioIssuer) reap(w *worker, n int, t1 int64) bool {
	ok := true
	for k := range n {
		s, i := a.slotOf(a.entries[k].ov)
		a.free[a.nFree] = i
		a.nFree++
		a.inflight--
		if st := windows.NTStatus(s.ov.Internal); st != windows.STATUS_SUCCESS && st != statusEndOfFile {
			w.fail(fmt.Errorf("%s %d bytes at offset %d: %w", dirNames[s.dir], s.size, s.off, st.Errno()))
			ok = false
			continue
		}
		if !w.complete(s.dir, int(a.entries[k].bytes), s.size, s.off, s.prepNs, s.submitNs, t1) {
			ok = false
		}
	}
	return ok
}

// slotOf is the slot whose OVERLAPPED ov is.
func (a *aioIssuer) slotOf(ov *windows.Overlapped) (*aioSlot, int32) {
	i := int32((uintptr(unsafe.Pointer(ov)) - a.base) / unsafe.Sizeof(aioSlot{}))
	return &a.slots[i], i
}

// close cancels what is still in flight (after a failure), waits for each
// of those I/Os to come back, and closes the port. An I/O that never comes
// back keeps its slot's memory: the issuer is then kept reachable for good,
// so Windows never writes into memory Go has reused.
func (a *aioIssuer) close() {
	if a.inflight > 0 {
		_ = windows.CancelIoEx(a.h, nil)
		deadline := time.Now().Add(30 * time.Second)
		for a.inflight > 0 && time.Now().Before(deadline) {
			r, _, _ := syscall.SyscallN(procGetQueuedCompletionStatusEx.Addr(), uintptr(a.port), uintptr(unsafe.Pointer(&a.entries[0])),
				uintptr(len(a.entries)), uintptr(unsafe.Pointer(&a.got)), 100, 0)
			if r != 0 {
				a.inflight -= int(a.got)
			}
		}
		if a.inflight > 0 {
			abandoned = append(abandoned, a)
			return
		}
	}
	if a.port != 0 {
		_ = windows.CloseHandle(a.port)
		a.port = 0
	}
	runtime.KeepAlive(a.slots)
}

// abandoned holds issuers whose cancelled I/O never completed.
var abandoned []*aioIssuer
