package ioengine

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/clydebench/clyde/internal/clydetest"
	"github.com/clydebench/clyde/internal/osio"
)

// The contract every registered engine keeps, run over the registry: the
// bytes land at their offsets and reads return what is there; a read
// across the end of a file is short, with its real byte count; errors come
// back (a write on a read-only descriptor, a read at a negative offset);
// a sync completes in Queue; and units in flight when the core stops all
// come back, each once, and nothing more after them. An engine that
// cannot run here is skipped with its reason (windowsaio off Windows; on
// Linux it runs under Wine, integration/wine); null, which opens no file,
// is held to what it promises instead: every unit back, whole, at once.

const testBS = 4096

// blockPattern is what block i of a test file holds before a test: its
// index in every 8 bytes, so a read from the wrong offset shows.
func blockPattern(i int64) []byte {
	b := make([]byte, testBS)
	for k := 0; k < len(b); k += 8 {
		binary.LittleEndian.PutUint64(b[k:], uint64(i)<<8|0xa5)
	}
	return b
}

// patternFile writes a file of n blocks and tail bytes more in dir, each
// block its blockPattern.
func patternFile(t *testing.T, dir string, n int64, tail int) string {
	t.Helper()
	var data []byte
	for i := range n {
		data = append(data, blockPattern(i)...)
	}
	data = append(data, blockPattern(n)[:tail]...)
	path := filepath.Join(dir, "engine.dat")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// ioReq is one I/O a test asks for; result what came back.
type ioReq struct {
	op  Op
	off int64
	buf []byte
}

type ioResult struct {
	n    int
	err  error
	back int // times the unit came back: must be 1
}

// drive runs reqs through e as the core loop does, with at most depth
// units queued or in flight, each of depth units reused once it is back,
// and returns each request's result (an engine that holds one unit at a
// time is given one at a time). A Commit that fails fails the units it
// held, as the core fails the worker; ErrAgain is reaped and retried.
func drive(t *testing.T, d *Driver, e Engine, depth int, reqs []ioReq) []ioResult {
	t.Helper()
	return driveReaping(t, d, e, depth, 1, reqs)
}

// driveReaping is drive with each reap asking for least: 0 polls, as fio's
// iodepth_batch_complete_min=0 does, without ever waiting.
func driveReaping(t *testing.T, d *Driver, e Engine, depth, least int, reqs []ioReq) []ioResult {
	t.Helper()
	if d.Has(FlagOneInFlight) {
		depth = 1
	}
	dr := &driver{t: t, e: e, depth: depth, least: least, res: make([]ioResult, len(reqs)),
		units: make([]Unit, depth), owner: make([]int, depth)}
	for i := range dr.units {
		dr.units[i].Index = i
		dr.free = append(dr.free, i)
	}
	for k, r := range reqs {
		for len(dr.free) == 0 {
			dr.commit()
			dr.reap()
		}
		i := dr.free[len(dr.free)-1]
		dr.free = dr.free[:len(dr.free)-1]
		dr.owner[i] = k
		u := &dr.units[i]
		u.Op, u.File, u.Off, u.Buf, u.N, u.Err = r.op, 0, r.off, r.buf, -1, nil
		switch e.Queue(u) {
		case Completed:
			dr.back(u)
		case Queued:
			if d.Has(FlagCommits) {
				dr.queued = append(dr.queued, i)
				dr.commit()
			} else {
				dr.inflight++
			}
		}
	}
	dr.commit()
	for start := time.Now(); dr.inflight > 0; dr.reap() {
		if time.Since(start) > time.Minute {
			t.Fatalf("%d units still in flight after a minute", dr.inflight)
		}
	}
	return dr.res
}

// driver is drive's state: the units, which request each carries, which
// are free, queued for Commit or in flight.
type driver struct {
	t            *testing.T
	e            Engine
	depth, least int
	res          []ioResult
	units        []Unit
	owner        []int
	free, queued []int
	inflight     int
}

// back records a unit that came back and frees it.
func (dr *driver) back(u *Unit) {
	r := &dr.res[dr.owner[u.Index]]
	r.n, r.err = u.N, u.Err
	r.back++
	dr.free = append(dr.free, u.Index)
}

// reap is one GetEvents, held to what it may return.
func (dr *driver) reap() {
	n, err := dr.e.GetEvents(dr.least, dr.depth)
	if err != nil {
		dr.t.Fatalf("GetEvents: %v", err)
	}
	if n > dr.depth || n > dr.inflight {
		dr.t.Fatalf("GetEvents took %d, with %d in flight and at most %d asked", n, dr.inflight, dr.depth)
	}
	for k := range n {
		dr.back(dr.e.Event(k))
	}
	dr.inflight -= n
}

// commit submits everything queued.
func (dr *driver) commit() {
	for idle := 0; len(dr.queued) > 0; {
		n, err := dr.e.Commit()
		if idle++; n > 0 {
			idle = 0
		} else if idle > 1_000_000 {
			dr.t.Fatalf("Commit took none of %d queued units a million times", len(dr.queued))
		}
		switch {
		case errors.Is(err, ErrAgain):
			if dr.inflight > 0 {
				dr.reap()
			}
			continue
		case err != nil:
			for _, i := range dr.queued {
				dr.units[i].N, dr.units[i].Err = 0, err
				dr.back(&dr.units[i])
			}
			dr.queued = nil
			return
		}
		dr.queued, dr.inflight = dr.queued[n:], dr.inflight+n
	}
}

// openEngine opens d on the file at path (nil: none), or skips the test
// with why it cannot run here; Close runs at the end of the test.
func openEngine(t *testing.T, d *Driver, path string, flag osio.Flag, depth int, size int64) Engine {
	t.Helper()
	if err := d.Available(); err != nil {
		clydetest.Skipf(t, "%s not available here: %v", d.Name, err)
	}
	var files []osio.File
	if path != "" {
		if d.Has(FlagOverlapped) {
			flag |= osio.Overlapped
		}
		f, err := osio.OpenFile(path, flag)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = f.Close() })
		files = []osio.File{f}
	}
	c := Config{Files: files, Depth: depth, Size: size, Reads: true, Writes: flag&osio.ReadWrite != 0, Options: testOptions[d.Name]}
	// The test's goroutine opens and drives the engine, as a worker's
	// does: io_uring locks it to its thread, which ends with the test.
	e, err := d.Open(c)
	if err != nil {
		t.Fatalf("open %s: %v", d.Name, err)
	}
	t.Cleanup(func() { _ = e.Close() })
	return e
}

// forEachDriver runs test for every registered driver.
func forEachDriver(t *testing.T, test func(t *testing.T, d *Driver)) {
	forEachDriverWhere(t, nil, test)
}

// forEachDriverWhere runs test for the drivers applies says it applies to
// (all when nil); the others get no subtest, as a case that cannot run on
// an engine is not a case of it.
func forEachDriverWhere(t *testing.T, applies func(*Driver) bool, test func(t *testing.T, d *Driver)) {
	for _, d := range Drivers() {
		if applies != nil && !applies(d) {
			continue
		}
		t.Run(d.Name, func(t *testing.T) { test(t, d) })
	}
}

// diskless says why a driver is held to null's contract instead: it
// opens no file (null; cpuio, which does no I/O either).
func diskless(d *Driver) bool { return d.Has(FlagDiskless) }

// testOptions are the engine options a test opens an engine with: cpuio
// needs its load, and burns 10 µs per unit here.
var testOptions = map[string]map[string]string{"cpuio": {"cpuload": "100", "cpuchunks": "10"},
	"exec": {"program": "true", "std_redirect": "0"}}

// unitBytes is what a test's unit carries and must come back with: none
// on an engine that does no I/O (FlagNoIO: the core hands it empty units).
func unitBytes(d *Driver) int {
	if d.Has(FlagNoIO) {
		return 0
	}
	return testBS
}

// movesData says whether a test of bytes at offsets applies to d: not to
// an engine that moves none (FlagNoData: falloc, ftruncate; FlagNoIO:
// cpuio, exec), whose own test holds it to the calls it makes instead.
func movesData(d *Driver) bool { return !d.Has(FlagNoData) && !d.Has(FlagNoIO) }

// takenOp is the op, and the descriptor's mode, a test that only needs
// units to come back issues: a read, or a write on an engine that moves
// no bytes (ftruncate takes nothing else).
func takenOp(d *Driver) (Op, osio.Flag) {
	if d.Has(FlagNoData) {
		return Write, osio.ReadWrite
	}
	return Read, osio.ReadOnly
}

// TestEnginesMoveTheRightBytes writes every other block of a pattern file
// and reads the others back, at iodepth 8, then checks the file: each
// write landed at its offset and nowhere else, each read got its block.
func TestEnginesMoveTheRightBytes(t *testing.T) {
	const blocks, depth = 64, 8
	forEachDriverWhere(t, movesData, func(t *testing.T, d *Driver) {
		path := patternFile(t, testDir(t), blocks, 0)
		if diskless(d) {
			path = ""
		}
		e := openEngine(t, d, path, osio.ReadWrite, depth, blocks*testBS)
		var reqs []ioReq
		for i := range int64(blocks) {
			op, buf := Read, make([]byte, testBS)
			if i%2 == 0 {
				op, buf = Write, bytes.Repeat([]byte{byte(i) | 1}, testBS)
			}
			reqs = append(reqs, ioReq{op, i * testBS, buf})
		}
		res := drive(t, d, e, depth, reqs)
		for k, r := range res {
			if r.back != 1 || r.err != nil || r.n != testBS {
				t.Fatalf("%s at %d: back %d times, %d bytes, %v; want once, %d bytes", reqs[k].op, reqs[k].off, r.back, r.n, r.err, testBS)
			}
			if !diskless(d) && reqs[k].op == Read && !bytes.Equal(reqs[k].buf, blockPattern(int64(k))) {
				t.Errorf("the read at %d got other bytes than the file's", reqs[k].off)
			}
		}
		if diskless(d) {
			return // null moves no byte (fio's FIO_DISKLESSIO): nothing to read back
		}
		_ = e.Close()
		checkFile(t, path, reqs)
	})
}

// checkFile holds the file at path to the pattern with reqs' writes over
// it.
func checkFile(t *testing.T, path string, reqs []ioReq) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range reqs {
		want := blockPattern(int64(i))
		if r.op == Write {
			want = r.buf
		}
		if !bytes.Equal(data[r.off:r.off+testBS], want) {
			t.Fatalf("block %d holds the wrong bytes (%s)", i, r.op)
		}
	}
}

// TestEnginesReportShortReads reads a file that ends half-way into its
// third block: the read across the end moves the half there is, the one
// past the end none, and neither is an error. null, which opens no file,
// has no end: each read is whole.
func TestEnginesReportShortReads(t *testing.T) {
	forEachDriverWhere(t, movesData, func(t *testing.T, d *Driver) {
		path, wants := patternFile(t, testDir(t), 2, testBS/2), []int{testBS, testBS / 2, 0}
		if diskless(d) {
			path, wants = "", []int{testBS, testBS, testBS}
		}
		e := openEngine(t, d, path, osio.ReadOnly, 4, 4*testBS)
		reqs := []ioReq{{Read, 0, make([]byte, testBS)}, {Read, 2 * testBS, make([]byte, testBS)}, {Read, 3 * testBS, make([]byte, testBS)}}
		res := drive(t, d, e, 4, reqs)
		for k, want := range wants {
			if r := res[k]; r.back != 1 || r.err != nil || r.n != want {
				t.Errorf("read at %d: back %d times, %d bytes, %v; want once, %d bytes, no error", reqs[k].off, r.back, r.n, r.err, want)
			}
		}
		if !diskless(d) && !bytes.Equal(reqs[1].buf[:testBS/2], blockPattern(2)[:testBS/2]) {
			t.Error("the short read got other bytes than the file's")
		}
	})
}

// TestEnginesReportErrors: a write on a descriptor opened read-only, and a
// read at a negative offset, each come back failed (at submission or at
// completion), and a read queued beside them still succeeds. null, which
// opens no file and does no I/O, fails neither: both come back whole.
func TestEnginesReportErrors(t *testing.T) {
	forEachDriverWhere(t, movesData, func(t *testing.T, d *Driver) {
		path := patternFile(t, testDir(t), 8, 0)
		if diskless(d) {
			path = ""
		}
		for _, c := range []struct {
			name string
			bad  ioReq
		}{
			{"write on a read-only descriptor", ioReq{Write, testBS, make([]byte, testBS)}},
			{"read at a negative offset", ioReq{Read, -testBS, make([]byte, testBS)}},
		} {
			t.Run(c.name, func(t *testing.T) {
				if d.Has(FlagOverlapped) && c.bad.off < 0 && underWine() {
					// Wine 8 queues a completion packet for the ReadFile it
					// refused at once, which Windows does not: the next
					// reap takes that stale packet for the next read.
					clydetest.Skip(t, "under Wine a refused overlapped read still posts a completion, unlike Windows")
				}
				e := openEngine(t, d, path, osio.ReadOnly, 4, 8*testBS)
				reqs := []ioReq{{Read, 0, make([]byte, testBS)}, c.bad, {Read, 2 * testBS, make([]byte, testBS)}}
				res := drive(t, d, e, 1, reqs)
				if r := res[1]; r.back != 1 || (r.err == nil) != diskless(d) || diskless(d) && r.n != testBS {
					t.Errorf("%s: back %d times, %d bytes, error %v; want it failed (null: whole)", c.name, r.back, r.n, r.err)
				}
				for _, k := range []int{0, 2} {
					if r := res[k]; r.back != 1 || r.err != nil || r.n != testBS {
						t.Errorf("the read at %d beside it: back %d times, %d bytes, %v", reqs[k].off, r.back, r.n, r.err)
					}
				}
			})
		}
	})
}

// TestEnginesSyncInQueue: a sync unit, and a datasync one, complete in
// Queue, without error, on a file with writes in flight before them.
func TestEnginesSyncInQueue(t *testing.T) {
	// An engine that refuses a job that syncs (as fio's engine fails a
	// sync: falloc, ftruncate, cpuio) is not held to it; its refusal is
	// its own test's.
	syncs := func(d *Driver) bool {
		return d.Check == nil || d.Check(Job{Name: "sync", Writes: true, Syncs: true, SizesMultipleOf: func(int64) bool { return true }}) == nil
	}
	forEachDriverWhere(t, syncs, func(t *testing.T, d *Driver) {
		path := patternFile(t, testDir(t), 8, 0)
		if diskless(d) {
			path = ""
		}
		e := openEngine(t, d, path, osio.ReadWrite, 4, 8*testBS)
		for _, op := range []Op{Sync, Datasync} {
			u := &Unit{Op: op, Index: 4}
			if s := e.Queue(u); s != Completed || u.Err != nil {
				t.Errorf("%s: status %d, error %v; want Completed in Queue, no error", op, s, u.Err)
			}
		}
	})
}

// TestEnginesGiveBackEveryUnitInFlight fills the queue, stops issuing (as
// the core does when told to stop) and reaps: every unit comes back once,
// whole, and after that the engine has nothing more to give.
func TestEnginesGiveBackEveryUnitInFlight(t *testing.T) {
	const blocks, depth = 256, 32
	forEachDriver(t, func(t *testing.T, d *Driver) {
		path := patternFile(t, testDir(t), blocks, 0)
		if diskless(d) {
			path = ""
		}
		op, mode := takenOp(d)
		e := openEngine(t, d, path, mode, depth, blocks*testBS)
		var reqs []ioReq
		for i := range int64(depth) {
			reqs = append(reqs, ioReq{op, (i * 37 % blocks) * testBS, make([]byte, unitBytes(d))})
		}
		res := drive(t, d, e, depth, reqs)
		left, err := e.GetEvents(0, depth)
		for k, r := range res {
			if r.back != 1 || r.err != nil || r.n != unitBytes(d) {
				t.Errorf("unit %d: back %d times, %d bytes, %v", k, r.back, r.n, r.err)
			}
		}
		if left != 0 || err != nil {
			t.Errorf("after every unit came back the engine gave %d more (%v)", left, err)
		}
	})
}

// TestEnginesCompleteWhenPolled reaps only by asking without waiting
// (GetEvents with min 0, fio's iodepth_batch_complete_min=0): every unit
// still comes back, each once.
func TestEnginesCompleteWhenPolled(t *testing.T) {
	const blocks, depth = 64, 8
	forEachDriver(t, func(t *testing.T, d *Driver) {
		path := patternFile(t, testDir(t), blocks, 0)
		if diskless(d) {
			path = ""
		}
		op, mode := takenOp(d)
		e := openEngine(t, d, path, mode, depth, blocks*testBS)
		var reqs []ioReq
		for i := range int64(blocks) {
			reqs = append(reqs, ioReq{op, i * testBS, make([]byte, unitBytes(d))})
		}
		for k, r := range driveReaping(t, d, e, depth, 0, reqs) {
			if r.back != 1 || r.err != nil || r.n != unitBytes(d) {
				t.Errorf("read %d: back %d times, %d bytes, %v", k, r.back, r.n, r.err)
			}
		}
	})
}

// TestRegistry holds each driver to what the core reads of it.
func TestRegistry(t *testing.T) {
	want := []string{"cpuio", "exec", "falloc", "ftruncate", "io_uring", "libaio", "mmap", "null", "posixaio", "psync", "windowsaio"}
	var got []string
	for _, d := range Drivers() {
		got = append(got, d.Name)
		if d.Has(FlagCommits) && !d.Has(FlagQueues) {
			t.Errorf("%s commits but does not queue", d.Name)
		}
		if lookup, ok := Lookup(d.Name); !ok || lookup != d {
			t.Errorf("Lookup(%q) does not find it", d.Name)
		}
		if err := d.Available(); err != nil && !errors.Is(err, ErrNotSupported) && d.Name != "io_uring" && d.Name != "libaio" {
			t.Errorf("%s: %v, want ErrNotSupported where it cannot exist", d.Name, err)
		}
	}
	if len(got) != len(want) {
		t.Fatalf("registered %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("registered %v, want %v", got, want)
		}
	}
}

// testDir is t.TempDir, except on Windows, where it is removed entry by
// entry through osio: under Wine 8 Go's os.RemoveAll fails on any
// directory with something in it, and these tests run there too.
func testDir(t *testing.T) string {
	t.Helper()
	if runtime.GOOS != "windows" {
		return t.TempDir()
	}
	p, err := os.MkdirTemp("", "ioengine")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		parent, err := osio.OpenDir(filepath.Dir(p))
		if err != nil {
			t.Error(err)
			return
		}
		defer parent.Close()
		if err := parent.RemoveAll(osio.Name(filepath.Base(p))); err != nil {
			t.Errorf("remove %s: %v", p, err)
		}
	})
	return p
}
