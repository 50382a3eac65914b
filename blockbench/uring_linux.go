//go:build linux

package blockbench

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// io_uring ABI constants (include/uapi/linux/io_uring.h).
const (
	uringOffSQRing        = 0
	uringOffCQRing        = 0x8000000
	uringOffSQEs          = 0x10000000
	uringEnterGetEvents   = 1 << 0
	uringFeatSingleMmap   = 1 << 0
	uringSetupCoopTaskrun = 1 << 8
	uringOpRead           = 22
	uringOpWrite          = 23
	uringSQESize          = 64
	uringCQESize          = 16
	uringParamsSize       = 120
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
}

func setupRing(entries uint32) (*uring, error) {
	// COOP_TASKRUN (5.19+): completions that io-wq workers post do not
	// interrupt the submitting thread; it runs them when it next enters the
	// kernel, which it does at once to wait. Older kernels refuse the flag
	// with EINVAL and get a plain ring.
	p := uringParams{flags: uringSetupCoopTaskrun}
	fd, _, errno := unix.Syscall(unix.SYS_IO_URING_SETUP, uintptr(entries), uintptr(unsafe.Pointer(&p)), 0)
	if errno == unix.EINVAL {
		p = uringParams{}
		fd, _, errno = unix.Syscall(unix.SYS_IO_URING_SETUP, uintptr(entries), uintptr(unsafe.Pointer(&p)), 0)
	}
	if errno != 0 {
		return nil, fmt.Errorf("io_uring_setup(%d): %w", entries, errno)
	}
	r := &uring{fd: int(fd), entries: p.sqEntries}
	if err := r.mapRings(&p); err != nil {
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
	if r.cqMem != nil && len(r.cqMem) > 0 && &r.cqMem[0] != &r.sqMem[0] {
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

// enter submits toSubmit SQEs and waits for at least minComplete completions.
// It returns how many SQEs the kernel took.
func (r *uring) enter(toSubmit, minComplete uint32) (int, error) {
	flags := uintptr(0)
	if minComplete > 0 {
		flags = uringEnterGetEvents
	}
	for {
		n, _, errno := unix.Syscall6(unix.SYS_IO_URING_ENTER, uintptr(r.fd), uintptr(toSubmit), uintptr(minComplete), flags, 0, 0)
		if errno == unix.EINTR {
			continue
		}
		if errno != 0 {
			return int(n), errno
		}
		return int(n), nil
	}
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

// uringAvailable says whether this kernel lets clyde set up a ring.
func uringAvailable() error { return uringProbe() }

// uringSlot is one I/O in flight: its buffer stays put while the kernel owns it.
type uringSlot struct {
	buf      []byte
	submitNs int64
	off      int64
	dir      int
}

func (w *worker) setupURing() error {
	r, err := setupRing(uint32(w.spec.ioDepth))
	if err != nil {
		return err
	}
	w.ring = r
	return nil
}

// runURing keeps iodepth I/Os in flight: fill every free slot, submit them
// and wait for at least one completion in one io_uring_enter, reap every
// completion. Two clock reads per batch time every I/O in it; nothing in the
// loop allocates.
func (w *worker) runURing() {
	r := w.ring
	depth := w.spec.ioDepth
	bs := int(w.spec.bs)
	slots := make([]uringSlot, depth)
	free := make([]int, depth)
	data := w.dataRand()
	for i := range slots {
		slots[i].buf = alignedBuffer(bs)
		fillBuffer(slots[i].buf, w.spec.buffer, data)
		free[i] = depth - 1 - i
	}
	fd := int32(w.h.fd)
	inflight, pending := 0, uint32(0)
	stopping := false
	now := w.now()
	if now >= w.nextEvent {
		stopping = w.tick(now)
	}
	tail := atomic.LoadUint32(r.sqTail)
	for {
		if !stopping {
			now = w.now()
			for len(free) > 0 && w.remaining > 0 {
				i := free[len(free)-1]
				free = free[:len(free)-1]
				s := &slots[i]
				s.dir = w.pickDir()
				s.off = w.nextOffset(s.dir)
				s.submitNs = now
				op := uint8(uringOpRead)
				if s.dir == dirWrite {
					op = uringOpWrite
				}
				r.sqes[tail&r.sqMask] = uringSQE{opcode: op, fd: fd, off: uint64(s.off),
					addr: uint64(uintptr(unsafe.Pointer(&s.buf[0]))), len: uint32(bs), userData: uint64(i)}
				tail++
				pending++
				inflight++
				w.remaining--
			}
			atomic.StoreUint32(r.sqTail, tail)
		}
		if inflight == 0 {
			return
		}
		n, err := r.enter(pending, 1)
		if err != nil && !errors.Is(err, unix.EAGAIN) && !errors.Is(err, unix.EBUSY) {
			w.err = fmt.Errorf("io_uring_enter: %w", err)
			return
		}
		pending -= uint32(max(n, 0))
		t1 := w.now()
		if !w.reap(slots, &free, &inflight, t1) {
			return
		}
		if !stopping && (t1 >= w.nextEvent || w.remaining <= 0) {
			stopping = w.tick(t1) || w.remaining <= 0
		}
	}
}

// reap takes every completion off the CQ ring; false means an I/O failed.
func (w *worker) reap(slots []uringSlot, free *[]int, inflight *int, t1 int64) bool {
	r := w.ring
	head := *r.cqHead
	tail := atomic.LoadUint32(r.cqTail)
	ok := true
	for ; head != tail; head++ {
		c := &r.cqes[head&r.cqMask]
		i := int(c.userData)
		s := &slots[i]
		*free = append(*free, i)
		*inflight--
		if c.res < 0 {
			if ok {
				w.err = fmt.Errorf("%s %d bytes at offset %d: %w", dirNames[s.dir], len(s.buf), s.off, unix.Errno(-c.res))
			}
			ok = false
			continue
		}
		n := int64(c.res)
		if n != int64(len(s.buf)) {
			w.short[s.dir]++
		}
		w.lat[s.dir].Record(time.Duration(t1 - s.submitNs))
		w.ios[s.dir]++
		w.bytes[s.dir] += n
		if s.dir == dirWrite && w.spec.fsync > 0 {
			if w.sinceSync++; w.sinceSync >= w.spec.fsync {
				if err := w.h.sync(); err != nil && ok {
					w.err, ok = fmt.Errorf("fsync: %w", err), false
				}
				w.syncs++
				w.sinceSync = 0
			}
		}
	}
	w.endNs = t1
	atomic.StoreUint32(r.cqHead, head)
	return ok
}
