//go:build linux || darwin || freebsd || netbsd || openbsd

package ioengine

import (
	"errors"
	"fmt"
	"math"
	"os"
	"runtime"
	"runtime/debug"

	"golang.org/x/sys/unix"

	"github.com/clydebench/clyde/result"
)

// mmap is fio's mmap (engines/mmap.c): the worker's region of the file is
// mapped MAP_SHARED, a read is a memcpy out of the map and a write a memcpy
// into it, one I/O at a time (FIO_SYNCIO). As fio does:
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
// Unlike fio's memcpy, an I/O past the end of a regular file (as it was
// when the engine was opened) moves only the bytes the file has, and says
// so (a short read, as pread's), instead of copying the zeros of the last
// page or faulting. A page the file no longer backs (truncated under the
// run) is SIGBUS: the fault comes back as the unit's error
// (debug.SetPanicOnFault) instead of a crash.
var mmapDriver = &Driver{
	Name:      "mmap",
	Available: func() error { return nil },
	Open:      openMmap,
	Check:     checkMmap,
}

func init() { Register(mmapDriver) }

// checkMmap is fio_mmapio_init's refusal; a volume's members are not
// mapped.
func checkMmap(j Job) error {
	page := int64(os.Getpagesize())
	if j.Volume {
		return result.Usagef("--ioengine", "workload %s: ioengine mmap maps one file; a volume runs on psync, io_uring or libaio", j.Name)
	}
	if !j.SizesMultipleOf(page) && (j.Direct || j.Syncs) {
		return result.Usagef("--bs", "workload %s: ioengine mmap with direct=1, fsync= or fdatasync= needs a block size that is a multiple of the page size, %d bytes (as fio's)", j.Name, page)
	}
	return nil
}

// openMmap maps the whole region before the start, so the mapping is not
// in the first I/O's latency (fio maps it at the first I/O). A region the
// address space cannot take is mapped I/O by I/O instead.
func openMmap(c Config) (Engine, error) {
	m := &mmapEngine{page: int64(os.Getpagesize()), prot: mmapProt(c), direct: c.Direct, end: math.MaxInt64}
	m.fd = c.Files[0].Fd()
	if st, err := c.Files[0].Stat(); err == nil && st.Reg {
		m.end = st.Size
	}
	if err := m.mapRange(c.Offset, c.Size); err != nil {
		m.partial = true
	} else if err := m.advise(c); err != nil {
		m.unmap()
		return nil, err
	}
	return m, nil
}

// mmapProt is fio_mmap_file's protection for the job's directions.
func mmapProt(c Config) int {
	switch {
	case c.Reads && c.Writes:
		return unix.PROT_READ | unix.PROT_WRITE
	case c.Writes:
		return unix.PROT_WRITE
	}
	return unix.PROT_READ
}

// mmapEngine is one worker's mapping: data maps the file from mapOff; end
// is the file's size when it was opened (MaxInt64 for a device).
type mmapEngine struct {
	data    []byte
	mapOff  int64 // file offset of data[0], page-aligned
	end     int64
	fd      int
	page    int64
	prot    int
	direct  bool
	partial bool // map each I/O's own range
}

// mapRange maps size bytes of the file from off (aligned down to a page,
// which mmap needs).
func (m *mmapEngine) mapRange(off, size int64) error {
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
// POSIX_MADV_DONTNEED (nothing on Linux, see mmapDriver).
func (m *mmapEngine) advise(c Config) error {
	if c.Hint {
		adv := unix.MADV_SEQUENTIAL
		if c.Random {
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

func (m *mmapEngine) unmap() {
	if m.data != nil {
		_ = unix.Munmap(m.data)
		m.data = nil
	}
}

func (m *mmapEngine) Close() error {
	m.unmap()
	return nil
}

// Queue is fio_mmapio_queue: one memcpy, or the msync of a sync.
func (m *mmapEngine) Queue(u *Unit) Status {
	switch u.Op {
	case Read, Write:
		u.N, u.Err = m.transfer(u.Op, u.Off, u.Buf)
	case Sync, Datasync:
		u.N, u.Err = 0, m.sync()
	default:
		u.N, u.Err = 0, fmt.Errorf("ioengine mmap: %s: %w", u.Op, ErrNotSupported)
	}
	return Completed
}

func (*mmapEngine) Commit() (int, error)            { return 0, nil }
func (*mmapEngine) GetEvents(int, int) (int, error) { return 0, nil }
func (*mmapEngine) Event(int) *Unit                 { return nil }

// sync is fio's DDIR_SYNC on mmap: msync(MS_SYNC) of the whole map (a
// partial map has at most the last I/O's range mapped).
func (m *mmapEngine) sync() error {
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
func (m *mmapEngine) span(off int64, size int) ([]byte, error) {
	if m.data != nil && off >= m.mapOff && off+int64(size) <= m.mapOff+int64(len(m.data)) {
		return m.data[off-m.mapOff : off-m.mapOff+int64(size)], nil
	}
	m.unmap()
	if err := m.mapRange(off, int64(size)); err != nil {
		return nil, err
	}
	return m.data[off-m.mapOff : off-m.mapOff+int64(size)], nil
}

// ErrMmapFault is a page of the map the file no longer backs.
var ErrMmapFault = errors.New("SIGBUS on the mapped file (a page past its end: was it truncated during the run?)")

// transfer is fio_mmapio_queue for one read or write of buf at off, no
// further than the file's end: the memcpy, then with direct=1 the msync
// and posix_madvise of its range. A fault on the map comes back as
// ErrMmapFault.
func (m *mmapEngine) transfer(op Op, off int64, buf []byte) (n int, err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(interface{ Addr() uintptr }); !ok {
				panic(r) // not a fault on the map: a bug, not the file
			}
			n, err = 0, ErrMmapFault
		}
	}()
	size := len(buf)
	if off >= 0 && off < m.end && int64(size) > m.end-off {
		size = int(m.end - off)
	} else if off >= m.end {
		return 0, nil
	}
	b, err := m.span(off, size)
	if err != nil {
		return 0, err
	}
	if op == Read {
		copy(buf[:size], b)
	} else {
		copy(b, buf[:size])
	}
	if !m.direct {
		return size, nil
	}
	return size, m.msyncRange(off, size)
}

// msyncRange is direct=1's msync and posix_madvise of one I/O's range.
// msync needs a page-aligned start; direct=1 holds bs and offset to the
// page (checkMmap), so the range starts on one unless offset= does not.
func (m *mmapEngine) msyncRange(off int64, size int) error {
	start := (off - m.mapOff) - (off-m.mapOff)%m.page
	r := m.data[start : off-m.mapOff+int64(size)]
	if err := unix.Msync(r, unix.MS_SYNC); err != nil {
		return fmt.Errorf("msync: %w", err)
	}
	return posixMadviseDontneed(r)
}
