//go:build windows

package ioengine

import (
	"fmt"
	"runtime"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"

	"github.com/clydebench/clyde/internal/osio"
)

// windowsaio is fio's windowsaio and DiskSpd's way of queueing: each
// worker's handles are opened for overlapped I/O and bound to an I/O
// completion port of its own; Queue issues one ReadFile or WriteFile with
// the unit's own OVERLAPPED (the call is the submission), and GetEvents
// takes completions off the port with GetQueuedCompletionStatusEx, every
// one waiting by default.
var windowsaio = &Driver{
	Name:      "windowsaio",
	Flags:     FlagQueues | FlagReapsAll | FlagOverlapped,
	Available: windowsAIOAvailable,
	Open:      openWindowsAIO,
}

func init() { Register(windowsaio) }

// The engine calls kernel32 through syscall.SyscallN directly: the errors
// come back as syscall.Errno, never boxed into an error (which allocates),
// and ReadFile and WriteFile take no byte count, as Microsoft asks of
// overlapped calls (x/sys's wrappers need one under the race detector).
var (
	kernel32                        = windows.NewLazySystemDLL("kernel32.dll")
	procGetQueuedCompletionStatusEx = kernel32.NewProc("GetQueuedCompletionStatusEx")
	procReadFile                    = kernel32.NewProc("ReadFile")
	procWriteFile                   = kernel32.NewProc("WriteFile")
)

func windowsAIOAvailable() error {
	for _, p := range []*windows.LazyProc{procGetQueuedCompletionStatusEx, procReadFile, procWriteFile} {
		if err := p.Find(); err != nil {
			return err
		}
	}
	return nil
}

// aioSlot is the unit at its index while Windows owns it. Its OVERLAPPED
// stays put, and alive, meanwhile: the slots live as long as the engine,
// and Close waits for every I/O it cancels.
type aioSlot struct {
	ov windows.Overlapped
	u  *Unit
}

// overlappedEntry is OVERLAPPED_ENTRY.
type overlappedEntry struct {
	key      uintptr
	ov       *windows.Overlapped
	internal uintptr
	bytes    uint32
}

// aioWaitTimeout bounds one wait for completions, so the core looks at its
// deadline and context at least that often while a device is slow.
const aioWaitTimeout = 10 * time.Millisecond

// statusEndOfFile is STATUS_END_OF_FILE: a read at or past the end of the
// file, which is 0 bytes (a short I/O), not a failure.
const statusEndOfFile = 0xC0000011

type windowsAIOEngine struct {
	port     windows.Handle
	files    []osio.File
	slots    []aioSlot
	base     uintptr // address of slots[0], to find a completion's slot
	entries  []overlappedEntry
	events   []*Unit
	got      uint32
	inflight int
}

// openWindowsAIO binds the worker's overlapped handles to a new completion
// port, before the workers start.
func openWindowsAIO(c Config) (Engine, error) {
	a := &windowsAIOEngine{files: c.Files, slots: make([]aioSlot, c.Depth), entries: make([]overlappedEntry, c.Depth),
		events: make([]*Unit, 0, c.Depth)}
	for _, f := range c.Files {
		port, err := windows.CreateIoCompletionPort(f.Handle(), a.port, 0, 1)
		if err != nil {
			a.Close()
			return nil, fmt.Errorf("CreateIoCompletionPort: %w", err)
		}
		a.port = port
	}
	a.base = uintptr(unsafe.Pointer(&a.slots[0]))
	return a, nil
}

// Queue issues the unit's ReadFile or WriteFile; a sync is
// FlushFileBuffers, at once.
func (a *windowsAIOEngine) Queue(u *Unit) Status {
	proc := procReadFile
	switch u.Op {
	case Read:
	case Write:
		proc = procWriteFile
	case Sync, Datasync:
		u.N, u.Err = 0, fileSync(a.files[u.File], u.Op)
		return Completed
	default:
		u.N, u.Err = 0, fmt.Errorf("ioengine windowsaio: %s: %w", u.Op, ErrNotSupported)
		return Completed
	}
	s := &a.slots[u.Index]
	s.u = u
	s.ov = windows.Overlapped{Offset: uint32(u.Off), OffsetHigh: uint32(u.Off >> 32)}
	var err syscall.Errno
	if r, _, e := syscall.SyscallN(proc.Addr(), uintptr(a.files[u.File].Handle()), uintptr(unsafe.Pointer(unsafe.SliceData(u.Buf))),
		uintptr(len(u.Buf)), 0, uintptr(unsafe.Pointer(&s.ov))); r == 0 {
		err = e
	}
	switch err {
	case 0, windows.ERROR_IO_PENDING:
		// Done at once or queued: either way a completion packet comes
		// to the port, and the slot is Windows' until then.
		a.inflight++
		return Queued
	case windows.ERROR_HANDLE_EOF:
		// Refused at submission, so no packet comes: a read past the
		// end, 0 bytes.
		u.N, u.Err = 0, nil
	default:
		u.N, u.Err = 0, err
	}
	return Completed
}

func (*windowsAIOEngine) Commit() (int, error) { return 0, nil }

// GetEvents takes up to max completions off the port, waiting at most
// aioWaitTimeout for the first when min is above 0.
func (a *windowsAIOEngine) GetEvents(min, max int) (int, error) {
	wait := uintptr(0)
	if min > 0 {
		wait = uintptr(aioWaitTimeout / time.Millisecond)
	}
	a.events = a.events[:0]
	r, _, e := syscall.SyscallN(procGetQueuedCompletionStatusEx.Addr(), uintptr(a.port), uintptr(unsafe.Pointer(&a.entries[0])),
		uintptr(max), uintptr(unsafe.Pointer(&a.got)), wait, 0)
	if r == 0 {
		if e == syscall.Errno(windows.WAIT_TIMEOUT) {
			return 0, nil
		}
		return 0, fmt.Errorf("GetQueuedCompletionStatusEx: %w", e)
	}
	for k := range int(a.got) {
		s := a.slotOf(a.entries[k].ov)
		a.inflight--
		s.u.N, s.u.Err = int(a.entries[k].bytes), nil
		if st := windows.NTStatus(s.ov.Internal); st != windows.STATUS_SUCCESS && st != statusEndOfFile {
			s.u.N, s.u.Err = 0, st.Errno()
		}
		a.events = append(a.events, s.u)
	}
	return len(a.events), nil
}

func (a *windowsAIOEngine) Event(i int) *Unit { return a.events[i] }

// slotOf is the slot whose OVERLAPPED ov is.
func (a *windowsAIOEngine) slotOf(ov *windows.Overlapped) *aioSlot {
	return &a.slots[(uintptr(unsafe.Pointer(ov))-a.base)/unsafe.Sizeof(aioSlot{})]
}

// Close cancels what is still in flight (after a failure), waits for each
// of those I/Os to come back, and closes the port. An I/O that never comes
// back keeps its slot's memory: the engine is then kept reachable for good,
// so Windows never writes into memory Go has reused.
func (a *windowsAIOEngine) Close() error {
	if a.inflight > 0 {
		for _, f := range a.files {
			_ = windows.CancelIoEx(f.Handle(), nil)
		}
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
			return nil
		}
	}
	if a.port != 0 {
		_ = windows.CloseHandle(a.port)
		a.port = 0
	}
	runtime.KeepAlive(a.slots)
	return nil
}

// abandoned holds engines whose cancelled I/O never completed.
var abandoned []*windowsAIOEngine
