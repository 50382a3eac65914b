//go:build linux || darwin || freebsd || netbsd || openbsd

package blockbench

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"

	"golang.org/x/sys/unix"

	"github.com/clydebench/clyde/internal/osio"
	"github.com/clydebench/clyde/result"
)

// mmapEngine is fio's mmap (engines/mmap.c): the worker's region of the
// file is mapped MAP_SHARED, a read is a memcpy out of the map and a write
// a memcpy into it, one I/O at a time (FIO_SYNCIO). As fio does:
//
//   - the whole region (offset=, size=) is mapped at once when it can be,
//     else each I/O maps its own range (fio's "partial mmap");
//   - the protection follows the job: read-only for a read job, write for a
//     write job (read too with verify), both for a mixed one;
//   - fadvise_hint (on by default) is madvise MADV_RANDOM or
//     MADV_SEQUENTIAL on the map, after which fio asks posix_madvise
//     POSIX_MADV_DONTNEED of the whole map;
//   - a sync (fsync=, fdatasync=, end_fsync) is msync(MS_SYNC) of the map;
//   - direct=1 is "not really direct": after each I/O, msync(MS_SYNC) of its
//     range and posix_madvise(POSIX_MADV_DONTNEED). glibc's posix_madvise
//     ignores POSIX_MADV_DONTNEED on Linux (the kernel's MADV_DONTNEED
//     would throw away changes), which strace of fio 3.33 shows: no
//     madvise call. clyde does the same there, and on the BSDs and macOS,
//     whose posix_madvise is madvise, calls MADV_DONTNEED;
//   - a block size that is not a multiple of the page size is refused with
//     direct=1, fsync= or fdatasync= (fio_mmapio_init).
//
// A page the file no longer backs (truncated under the run) is SIGBUS: the
// worker's goroutine turns it into the worker's error (debug.SetPanicOnFault)
// instead of a crash.
type mmapEngine struct{}

func (mmapEngine) name() Engine     { return EngineMmap }
func (mmapEngine) queues() bool     { return false }
func (mmapEngine) available() error { return nil }

// check is fio_mmapio_init's refusal, before anything is created; a
// volume's members are not mapped.
func (mmapEngine) check(w *Workload) error {
	page := int64(os.Getpagesize())
	if w.Volume != nil {
		return result.Usagef("--ioengine", "workload %s: ioengine mmap maps one file; a volume runs on psync, io_uring or libaio", w.Name)
	}
	if !w.sizesMultipleOf(page) && (w.Direct || w.Fsync > 0 || w.Fdatasync > 0) {
		return result.Usagef("--bs", "workload %s: ioengine mmap with direct=1, fsync= or fdatasync= needs a block size that is a multiple of the page size, %d bytes (as fio's)", w.Name, page)
	}
	return nil
}

func (mmapEngine) prepare(w *worker) (issuer, error) {
	size := w.pattern.maxSize(w)
	m := &mmapIssuer{rbuf: osio.AlignedBuffer(size), wbuf: osio.AlignedBuffer(size), page: int64(os.Getpagesize()),
		prot: mmapProt(w.spec), direct: w.spec.Direct}
	fillBuffer(m.wbuf, w.spec.Buffer, w.dataRand())
	m.fd = int(w.h.Fd())
	// fio maps the whole region at the first I/O; here before the start,
	// so the mapping is not in the first I/O's latency. A region the
	// address space cannot take is mapped I/O by I/O instead.
	if err := m.mapRange(w.spec.Offset, w.spec.Size); err != nil {
		m.partial = true
	} else if err := m.advise(w.spec); err != nil {
		m.unmap()
		return nil, err
	}
	return m, nil
}

// mmapProt is fio_mmap_file's protection for the job.
func mmapProt(w *workload) int {
	switch {
	case w.RW.Mixed():
		return unix.PROT_READ | unix.PROT_WRITE
	case w.RW.Writes() && w.Verify != VerifyNone:
		return unix.PROT_READ | unix.PROT_WRITE
	case w.RW.Writes():
		return unix.PROT_WRITE
	}
	return unix.PROT_READ
}

// mmapIssuer is one worker's mapping: data maps the file from mapOff.
// Reads land in rbuf, writes come from wbuf, as psync's (fio's io_us are
// apart too), so a read never changes what the next write writes.
type mmapIssuer struct {
	rbuf    []byte
	wbuf    []byte
	data    []byte
	mapOff  int64 // file offset of data[0], page-aligned
	fd      int
	page    int64
	prot    int
	direct  bool
	partial bool // map each I/O's own range
}

// mapRange maps size bytes of the file from off (aligned down to a page,
// which mmap needs).
func (m *mmapIssuer) mapRange(off, size int64) error {
	start := off - off%m.page
	length := size + off - start
	if length <= 0 || int64(int(length)) != length {
		return fmt.Errorf("mmap of %d bytes: larger than the address space", length)
	}
	b, err := unix.Mmap(m.fd, start, int(length), m.prot, unix.MAP_SHARED)
	if err != nil {
		return fmt.Errorf("mmap %d bytes at offset %d: %w", length, start, err)
	}
	m.data, m.mapOff = b, start
	return nil
}

// advise is fio_madvise_file on the whole map: the fadvise_hint, then
// POSIX_MADV_DONTNEED (nothing on Linux, see mmapEngine).
func (m *mmapIssuer) advise(w *workload) error {
	if w.FadviseHint {
		adv := unix.MADV_SEQUENTIAL
		if w.RW.Random() {
			adv = unix.MADV_RANDOM
		}
		if err := unix.Madvise(m.data, adv); err != nil {
			return fmt.Errorf("madvise: %w", err)
		}
	}
	return posixMadviseDontneed(m.data)
}

// posixMadviseDontneed is glibc's posix_madvise(POSIX_MADV_DONTNEED): a
// no-op on Linux, madvise(MADV_DONTNEED) elsewhere.
func posixMadviseDontneed(b []byte) error {
	if runtime.GOOS == "linux" {
		return nil
	}
	if err := unix.Madvise(b, unix.MADV_DONTNEED); err != nil {
		return fmt.Errorf("madvise: %w", err)
	}
	return nil
}

func (m *mmapIssuer) unmap() {
	if m.data != nil {
		_ = unix.Munmap(m.data)
		m.data = nil
	}
}

func (m *mmapIssuer) close() { m.unmap() }

// sync is fio's DDIR_SYNC on mmap: msync(MS_SYNC) of the whole map (a
// partial map has at most the last I/O's range mapped).
func (m *mmapIssuer) sync(bool) error {
	if m.data == nil {
		return nil
	}
	if err := unix.Msync(m.data, unix.MS_SYNC); err != nil {
		return fmt.Errorf("msync: %w", err)
	}
	return nil
}

// span is the mapped bytes of the I/O at off, mapping them first when the
// map is partial (fio_mmapio_prep: an I/O outside the map unmaps it and
// maps its own range).
func (m *mmapIssuer) span(off int64, size int) ([]byte, error) {
	if m.data != nil && off >= m.mapOff && off+int64(size) <= m.mapOff+int64(len(m.data)) {
		return m.data[off-m.mapOff : off-m.mapOff+int64(size)], nil
	}
	m.unmap()
	if err := m.mapRange(off, int64(size)); err != nil {
		return nil, err
	}
	return m.data[off-m.mapOff : off-m.mapOff+int64(size)], nil
}

// run is the synchronous loop: one memcpy per I/O, timed as psync's call.
func (m *mmapIssuer) run(w *worker) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	if t := w.now(); t >= w.nextEvent && w.tick(t) {
		return
	}
	for {
		dir, off, size := w.pattern.next(w)
		t0 := w.now()
		if dir == dirWrite && w.fill != nil {
			w.refill(m.wbuf[:size])
			t0 = w.now()
		}
		if err := m.transfer(dir, off, size); err != nil {
			w.fail(fmt.Errorf("%s %d bytes at offset %d: %w", dirNames[dir], size, off, err))
			return
		}
		t1 := w.now()
		if !w.complete(dir, size, size, off, t0, t0, t1) {
			return
		}
		if t1 >= w.nextEvent && w.tick(t1) {
			return
		}
	}
}

// errMmapFault is a page of the map the file no longer backs.
var errMmapFault = errors.New("SIGBUS on the mapped file (a page past its end: was it truncated during the run?)")

// transfer is fio_mmapio_queue for one read or write: the memcpy, then
// with direct=1 the msync and posix_madvise of its range. A fault on the
// map comes back as errMmapFault.
func (m *mmapIssuer) transfer(dir int, off int64, size int) (err error) {
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(interface{ Addr() uintptr }); !ok {
				panic(r) // not a fault on the map: a bug, not the file
			}
			err = errMmapFault
		}
	}()
	b, err := m.span(off, size)
	if err != nil {
		return err
	}
	if dir == dirRead {
		copy(m.rbuf[:size], b)
	} else {
		copy(b, m.wbuf[:size])
	}
	if !m.direct {
		return nil
	}
	// msync needs a page-aligned start; direct=1 holds bs and offset to
	// the page (check), so b starts on one unless offset= does not.
	start := (off - m.mapOff) - (off-m.mapOff)%m.page
	r := m.data[start : off-m.mapOff+int64(size)]
	if err := unix.Msync(r, unix.MS_SYNC); err != nil {
		return fmt.Errorf("msync: %w", err)
	}
	return posixMadviseDontneed(r)
}
