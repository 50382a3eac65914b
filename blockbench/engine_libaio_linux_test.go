//go:build linux

package blockbench

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/clydebench/clyde/internal/clydetest"

	"golang.org/x/sys/unix"

	"github.com/clydebench/clyde/internal/osio"
)

const libaioTestBS = 4096

// blockPattern is what block i of a test file holds before the run: its
// index in every 8 bytes, so a read from the wrong offset shows.
func blockPattern(i int64) []byte {
	b := make([]byte, libaioTestBS)
	for k := 0; k < len(b); k += 8 {
		binary.LittleEndian.PutUint64(b[k:], uint64(i)<<8|0xa5)
	}
	return b
}

// patternFile writes a file of n blocks in dir, each its blockPattern.
func patternFile(t *testing.T, dir string, n int64) string {
	t.Helper()
	var data []byte
	for i := range n {
		data = append(data, blockPattern(i)...)
	}
	path := filepath.Join(dir, "aio.dat")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// directDir is a directory whose filesystem takes O_DIRECT (t.TempDir, or
// /var/tmp), or the test skips.
func directDir(t *testing.T) string {
	t.Helper()
	for _, dir := range []string{t.TempDir(), "/var/tmp"} {
		probe := filepath.Join(dir, "clyde-odirect-probe")
		fd, err := unix.Open(probe, unix.O_CREAT|unix.O_EXCL|unix.O_RDWR|unix.O_DIRECT, 0o600)
		if err != nil {
			continue
		}
		_ = unix.Close(fd)
		_ = os.Remove(probe)
		if dir == "/var/tmp" {
			d, err := os.MkdirTemp(dir, "clyde-libaio-test-")
			if err != nil {
				continue
			}
			t.Cleanup(func() { _ = os.RemoveAll(d) })
			return d
		}
		return dir
	}
	clydetest.Skip(t, "neither the test's temporary directory nor /var/tmp takes O_DIRECT here")
	return ""
}

// shmDir is a directory on tmpfs, for buffered I/O that never waits on a
// disk, or the test skips.
func shmDir(t *testing.T) string {
	t.Helper()
	d, err := os.MkdirTemp("/dev/shm", "clyde-libaio-test-")
	if err != nil {
		clydetest.Skipf(t, "no /dev/shm here: %v", err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(d) })
	return d
}

// libaioWorker is a worker of wl on the file at path, opened as the runner
// opens it, with its libaio issuer prepared.
func libaioWorker(t *testing.T, path string, wl *workload, flags osio.Flag) (*worker, *libaioIssuer) {
	t.Helper()
	if err := libaioProbe(); err != nil {
		clydetest.Skipf(t, "libaio not available here: %v", err)
	}
	if wl.Direct {
		flags |= osio.Direct
	}
	h, err := osio.OpenFile(path, flags)
	if err != nil {
		t.Fatal(err)
	}
	wl.engine, wl.IOEngine, wl.depth = libaioEngine{}, EngineLibaio, wl.IODepth
	w := newWorker(wl, 0)
	w.h, w.ctx, w.base = h, context.Background(), time.Now()
	t.Cleanup(w.close)
	is, err := libaioEngine{}.prepare(w)
	if err != nil {
		t.Fatal(err)
	}
	w.issuer = is
	return w, is.(*libaioIssuer)
}

// TestLibaioMovesTheRightBytes runs one pass of random reads and writes,
// each block once (fio's random map), and checks every read got the bytes
// at its offset and every write left its buffer there and nowhere else,
// buffered on tmpfs and with O_DIRECT. The depth counts are fio's for a
// queue that fills and then is refilled one I/O per reap.
func TestLibaioMovesTheRightBytes(t *testing.T) {
	const blocks, depth = 256, 16
	for _, direct := range []bool{false, true} {
		name := map[bool]string{false: "buffered", true: "direct"}[direct]
		t.Run(name, func(t *testing.T) {
			dir := shmDir
			if direct {
				dir = directDir
			}
			path := patternFile(t, dir(t), blocks)
			wl := &workload{Workload: Workload{RW: RandRW, RWMixRead: 50, BS: libaioTestBS, Size: blocks * libaioTestBS, IODepth: depth,
				NumJobs: 1, Buffer: Buffer{Kind: BufferRandom}, Seed: 7, RandomMap: true, Direct: direct}}
			w, a := libaioWorker(t, path, wl, osio.ReadWrite)
			w.ioLimit, w.remaining = blocks, blocks
			written := map[int64][]byte{}
			var bad []string
			w.record(observeFunc(func(r IORecord) {
				dir, n, off := r.Dir, r.Bytes, r.Offset
				// The slot is free again, but its buffer is untouched
				// until the next I/O is drawn into it.
				for i := range a.slots {
					s := &a.slots[i]
					if s.off != off || s.dir != dir || a.iocbs[i].offset != off {
						continue
					}
					if dir == dirWrite {
						written[off] = bytes.Clone(s.buf[:n])
					} else if !bytes.Equal(s.buf[:n], blockPattern(off/libaioTestBS)) {
						bad = append(bad, "read at "+strconv.FormatInt(off, 10))
					}
					return
				}
				bad = append(bad, "no slot for the completion at "+strconv.FormatInt(off, 10))
			}), true)
			a.run(w)
			if w.err != nil {
				t.Fatal(w.err)
			}
			if n := w.ios[dirRead] + w.ios[dirWrite]; n != blocks || w.ios[dirRead] == 0 || w.ios[dirWrite] == 0 {
				t.Fatalf("%d reads, %d writes, want %d I/Os of both", w.ios[dirRead], w.ios[dirWrite], blocks)
			}
			if len(bad) > 0 {
				t.Fatalf("%d I/Os moved the wrong bytes, first: %s", len(bad), bad[0])
			}
			w.close()
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			for i := range int64(blocks) {
				want := blockPattern(i)
				if b, ok := written[i*libaioTestBS]; ok {
					want = b
				}
				if !bytes.Equal(data[i*libaioTestBS:(i+1)*libaioTestBS], want) {
					t.Fatalf("block %d holds the wrong bytes (written: %v)", i, written[i*libaioTestBS] != nil)
				}
			}
			// The queue fills one I/O at a time to depth, then each reap
			// takes one and its slot is refilled: fio's io_u_map.
			wantDepth := [7]int64{1, 2, 4, 8, blocks - (depth - 1)}
			if got := [7]int64(w.fioDepth()); got != wantDepth {
				t.Errorf("depth counts %v, want %v: the queue should stay at iodepth %d", got, wantDepth, depth)
			}
			// One I/O per reap while I/O is left to issue; the drain at the
			// end takes the last depth in one call, or in a few when its
			// bounded wait (10 ms at a time) ends before all are done, as
			// on a loaded machine.
			reaps := w.fioReaps()
			if reaps[0] != 0 || reaps[1] < blocks-depth || reaps[1] > blocks-depth+3 || reaps[2]+reaps[3] > 3 || reaps[4]+reaps[5]+reaps[6] != 0 {
				t.Errorf("reap counts %v, want %d of one I/O and the last %d in one call or a few", reaps, blocks-depth, depth)
			}
			if a.inflight != 0 || a.nFree != depth {
				t.Errorf("%d I/Os in flight, %d free slots after the run", a.inflight, a.nFree)
			}
		})
	}
}

// scriptedPattern is the worker's rw mode, except that I/O number at is
// replaced by one of its own.
type scriptedPattern struct {
	n, at     int
	dir, size int
	off       int64
}

func (p *scriptedPattern) next(w *worker) (int, int64, int) {
	if p.n++; p.n-1 == p.at {
		return p.dir, p.off, p.size
	}
	return fioPattern{}.next(w)
}

func (p *scriptedPattern) maxSize(w *worker) int { return int(w.spec.BS) }

// TestLibaioReportsErrors checks both ways an I/O fails: io_submit refuses
// it (a write on a descriptor opened read-only: EBADF), and the kernel
// takes it and completes it with an error (a write past the largest file
// the filesystem allows: EFBIG in its io_event, while three I/Os submitted
// before it wait to be reaped). Either way the worker's error names the
// I/O and nothing is left in flight.
func TestLibaioReportsErrors(t *testing.T) {
	t.Run("io_submit refuses", func(t *testing.T) {
		path := patternFile(t, t.TempDir(), 64)
		wl := &workload{Workload: Workload{RW: RandRW, RWMixRead: 50, BS: libaioTestBS, Size: 64 * libaioTestBS, IODepth: 8,
			NumJobs: 1, Buffer: Buffer{Kind: BufferRandom}, Seed: 3}}
		w, a := libaioWorker(t, path, wl, osio.ReadOnly)
		a.run(w)
		if !errors.Is(w.err, unix.EBADF) || !strings.Contains(w.err.Error(), "io_submit (write 4096 bytes at offset") {
			t.Errorf("err = %v, want io_submit's EBADF naming the write", w.err)
		}
		if a.inflight != 0 || a.nFree != 8 {
			t.Errorf("%d I/Os in flight, %d free slots: the loop returned before reaping", a.inflight, a.nFree)
		}
	})
	t.Run("completion", func(t *testing.T) {
		path := patternFile(t, t.TempDir(), 64)
		wl := &workload{Workload: Workload{RW: RandWrite, BS: libaioTestBS, Size: 64 * libaioTestBS, IODepth: 8,
			NumJobs: 1, Buffer: Buffer{Kind: BufferRandom}, Seed: 3}}
		w, a := libaioWorker(t, path, wl, osio.ReadWrite)
		w.pattern = &scriptedPattern{at: 3, dir: dirWrite, off: 1 << 62, size: libaioTestBS}
		a.run(w)
		if !errors.Is(w.err, unix.EFBIG) || !strings.Contains(w.err.Error(), "write 4096 bytes at offset 4611686018427387904") {
			t.Errorf("err = %v, want EFBIG for the write at offset 2^62", w.err)
		}
		if w.ios[dirWrite] < 3 {
			t.Errorf("%d writes counted, want the 3 before the failing one at least", w.ios[dirWrite])
		}
		if a.inflight != 0 || a.nFree != 8 {
			t.Errorf("%d I/Os in flight, %d free slots: the loop returned before reaping", a.inflight, a.nFree)
		}
	})
}

// TestLibaioStopReapsInFlight stops a time-based direct run from its
// context while the queue is full and checks the loop reaped every I/O
// it had submitted before returning: none is left in the kernel.
func TestLibaioStopReapsInFlight(t *testing.T) {
	const depth = 32
	path := patternFile(t, directDir(t), 1024)
	wl := &workload{Workload: Workload{RW: RandRead, BS: libaioTestBS, Size: 1024 * libaioTestBS, IODepth: depth,
		NumJobs: 1, Buffer: Buffer{Kind: BufferRandom}, Seed: 5, Direct: true, TimeBased: true, Runtime: time.Minute}}
	w, a := libaioWorker(t, path, wl, osio.ReadOnly)
	ctx, cancel := context.WithCancel(context.Background())
	w.ctx = ctx
	time.AfterFunc(150*time.Millisecond, cancel)
	a.run(w)
	cancel()
	if w.err != nil {
		t.Fatal(w.err)
	}
	if !w.stoppedEarly || w.inflight[depth] == 0 {
		t.Fatalf("stopped early %v, depth counts %v: the run should have filled its queue and been stopped", w.stoppedEarly, w.inflight)
	}
	if a.inflight != 0 || a.nFree != depth {
		t.Errorf("%d I/Os in flight, %d free slots after the stop", a.inflight, a.nFree)
	}
	// Nothing the kernel holds: a poll finds no completion left.
	var ev [depth]libaioEvent
	var zero unix.Timespec
	n, _, errno := unix.Syscall6(unix.SYS_IO_GETEVENTS, a.ctx, 0, depth, uintptr(unsafe.Pointer(&ev[0])), uintptr(unsafe.Pointer(&zero)), 0)
	if errno != 0 || n != 0 {
		t.Errorf("io_getevents after the stop: %d events, %v: completions were left unreaped", n, errno)
	}
	if w.ios[dirRead] == 0 {
		t.Error("no I/O completed")
	}
}

// TestLibaioLayout pins the kernel ABI: offsets of the iocb fields the
// kernel reads.
func TestLibaioLayout(t *testing.T) {
	var c libaioIOCB
	for _, f := range []struct {
		name string
		got  uintptr
		want uintptr
	}{
		{"aio_lio_opcode", unsafe.Offsetof(c.opcode), 16},
		{"aio_fildes", unsafe.Offsetof(c.fildes), 20},
		{"aio_buf", unsafe.Offsetof(c.buf), 24},
		{"aio_nbytes", unsafe.Offsetof(c.nbytes), 32},
		{"aio_offset", unsafe.Offsetof(c.offset), 40},
		{"aio_flags", unsafe.Offsetof(c.flags), 56},
	} {
		if f.got != f.want {
			t.Errorf("%s at %d, the kernel reads it at %d", f.name, f.got, f.want)
		}
	}
	var e libaioEvent
	if unsafe.Offsetof(e.res) != 16 {
		t.Errorf("io_event.res at %d, want 16", unsafe.Offsetof(e.res))
	}
}

// TestLibaioEagainReapsAndRetries runs a queue deeper than its AIO context
// holds: io_submit refuses with EAGAIN once the context is full, and the
// loop must reap and submit the refused I/O again, losing and repeating
// none.
func TestLibaioEagainReapsAndRetries(t *testing.T) {
	const depth, ios = 512, 2048
	path := patternFile(t, shmDir(t), 256)
	wl := &workload{Workload: Workload{RW: RandRead, BS: libaioTestBS, Size: 256 * libaioTestBS, IODepth: depth,
		NumJobs: 1, Buffer: Buffer{Kind: BufferRandom}, Seed: 9}}
	w, a := libaioWorker(t, path, wl, osio.ReadOnly)
	// A context made for one I/O: the kernel rounds it up, to far fewer
	// than depth.
	libaioDestroy(a.ctx)
	ctx, err := libaioSetup(1)
	if err != nil {
		t.Fatal(err)
	}
	a.ctx = ctx
	capacity := 0
	probe := libaioIOCB{opcode: iocbCmdPread, fildes: uint32(w.h.Fd()), buf: uint64(uintptr(unsafe.Pointer(unsafe.SliceData(a.slots[0].buf)))), nbytes: libaioTestBS}
	for ; capacity < depth; capacity++ {
		a.iocbs[0] = probe
		if a.submit(0) != 0 {
			break
		}
	}
	if capacity == depth {
		clydetest.Skipf(t, "the kernel's context for 1 I/O took %d: no EAGAIN to test", depth)
	}
	// Reap the probes before the run.
	for got := 0; got < capacity; {
		n, ok := a.getEvents(w, capacity-got, capacity-got)
		if !ok {
			t.Fatal(w.err)
		}
		got += n
	}
	t.Logf("a context for 1 I/O holds %d", capacity)
	w.ioLimit, w.remaining = ios, ios
	a.run(w)
	if w.err != nil {
		t.Fatal(w.err)
	}
	if w.ios[dirRead] != ios || w.inflight.total() != ios {
		t.Errorf("%d reads completed, %d submissions counted, want %d of each (context of %d)", w.ios[dirRead], w.inflight.total(), ios, capacity)
	}
	if a.inflight != 0 || a.nFree != depth || a.pending != -1 {
		t.Errorf("%d in flight, %d free, pending %d after the run", a.inflight, a.nFree, a.pending)
	}
}

// TestLibaioCompleteMax checks fio's iodepth_batch_complete_max on libaio:
// each io_getevents waits for one completion and takes up to that many
// (capped at the depth), and the drain takes the rest in one call or a few.
func TestLibaioCompleteMax(t *testing.T) {
	const blocks, depth = 256, 16
	path := patternFile(t, shmDir(t), blocks)
	for _, c := range []struct{ completeMax, reapMax int }{{4, 4}, {64, depth}} {
		t.Run(strconv.Itoa(c.completeMax), func(t *testing.T) {
			wl := &workload{Workload: Workload{RW: RandRead, BS: libaioTestBS, Size: blocks * libaioTestBS, IODepth: depth,
				NumJobs: 1, Buffer: Buffer{Kind: BufferRandom}, Seed: 7, RandomMap: true, IODepthBatchCompleteMax: c.completeMax}}
			w, a := libaioWorker(t, path, wl, osio.ReadOnly)
			if a.reapMax != c.reapMax {
				t.Fatalf("iodepth_batch_complete_max=%d reaps %d per call, want %d", c.completeMax, a.reapMax, c.reapMax)
			}
			w.ioLimit, w.remaining = blocks, blocks
			a.run(w)
			if w.err != nil {
				t.Fatal(w.err)
			}
			if w.ios[dirRead] != blocks {
				t.Fatalf("%d reads, want %d", w.ios[dirRead], blocks)
			}
			if c.reapMax == 4 && w.fioReaps()[1] < (blocks-depth)/4 {
				t.Errorf("reap counts %v: want reaps of 1..4 while the queue is refilled", w.fioReaps())
			}
			if w.fioReaps()[4]+w.fioReaps()[5]+w.fioReaps()[6] != 0 {
				t.Errorf("reap counts %v: a reap took more than the depth", w.fioReaps())
			}
		})
	}
}
