package blockbench

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/clydebench/clyde/internal/clydetest"
	"github.com/clydebench/clyde/internal/ioengine"
	"github.com/clydebench/clyde/internal/osio"
)

// The loop's side of the engines' contract (internal/ioengine's
// conformance tests hold each engine to its own side), over the registry:
// whatever the engine, the loop counts each unit the engine gave back once,
// with the bytes it moved; a read across the end of the file counts as
// short with its real bytes; and a stop while units are in flight reaps
// every one before the loop returns. An engine that cannot run here is
// skipped with its reason.

// countingEngine counts what its engine did with the loop's data units:
// completed in Queue, queued, handed back by Event, and the bytes of all
// it completed; left is what a poll of the engine gave after the loop
// returned (none, when the loop reaped everything), leftErr its error.
type countingEngine struct {
	ioengine.Engine
	completed, queued, back int64
	bytes                   int64
	left                    int
	leftErr                 error
}

func (c *countingEngine) Queue(u *ioengine.Unit) ioengine.Status {
	s := c.Engine.Queue(u)
	switch {
	case u.Op == ioengine.Sync || u.Op == ioengine.Datasync:
	case s == ioengine.Completed:
		c.completed++
		c.bytes += int64(u.N)
	default:
		c.queued++
	}
	return s
}

func (c *countingEngine) Event(i int) *ioengine.Unit {
	u := c.Engine.Event(i)
	c.back++
	c.bytes += int64(u.N)
	return u
}

// loopOnEngine runs one worker of wl on the file at path (none for a
// diskless engine) through the loop with a countingEngine, on a goroutine
// of its own as a worker's (io_uring binds its ring to the thread); stop,
// when set, is called once the loop runs. It returns the worker, its loop
// and the counts.
func loopOnEngine(t *testing.T, e engine, wl *workload, path string, stop func(cancel func())) (*worker, *ioLoop, *countingEngine) {
	t.Helper()
	wl.engine, wl.IOEngine = e, e.name()
	switch e.name() {
	case "cpuio":
		wl.EngineOptions = map[string]string{"cpuload": "100", "cpuchunks": "10"} // 10 µs per unit, no pause
	case "exec":
		wl.EngineOptions = map[string]string{"program": "true", "std_redirect": "0"}
	}
	wl.depth = 1
	if e.queues() {
		wl.depth = wl.IODepth
	}
	w := newWorker(wl, 0)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	w.ctx = ctx
	if path != "" {
		h, err := osio.OpenFile(path, osio.ReadWrite|engineOpenFlags(e))
		if err != nil {
			t.Fatal(err)
		}
		w.h = h
	}
	t.Cleanup(w.close)
	var l *ioLoop
	c := &countingEngine{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		var err error
		if l, err = e.prepare(w); err != nil {
			w.fail(err)
			return
		}
		w.loop, c.Engine = l, l.e
		l.e = c
		if stop != nil {
			stop(cancel)
		}
		w.base = time.Now()
		l.run(w)
		c.left, c.leftErr = c.Engine.GetEvents(0, len(l.units))
	}()
	<-done
	if l == nil {
		t.Fatal(w.err)
	}
	return w, l, c
}

// forEachEngine runs test for every registered engine that can run here.
func forEachEngine(t *testing.T, test func(t *testing.T, e engine, path func(blocks int64, tail int) string)) {
	forEachEngineWhere(t, nil, test)
}

// forEachEngineWhere is forEachEngine over the engines applies says a test
// applies to (all of them when it is nil); the others get no subtest, as
// a case that cannot run is not a case.
func forEachEngineWhere(t *testing.T, applies func(engine) bool, test func(t *testing.T, e engine, path func(blocks int64, tail int) string)) {
	for _, d := range ioengine.Drivers() {
		if applies != nil && !applies(mustEngine(Engine(d.Name))) {
			continue
		}
		t.Run(d.Name, func(t *testing.T) {
			e := mustEngine(Engine(d.Name))
			if err := e.available(); err != nil {
				clydetest.Skipf(t, "%s not available here: %v", d.Name, err)
			}
			test(t, e, func(blocks int64, tail int) string {
				if e.d.Has(ioengine.FlagDiskless) {
					return "" // opens no file
				}
				return patternFileTail(t, testDir(t), blocks, tail)
			})
		})
	}
}

// movesNoData says whether e's I/O is a call per block that moves no
// bytes (falloc, ftruncate): the loop's side is tested with writes, which
// every such engine takes, and a read's end of file does not apply.
func movesNoData(e engine) bool { return e.d.Has(ioengine.FlagNoData) }

// unitBytes is what each unit moves: none on an engine that does no I/O
// (cpuio), the block otherwise.
func unitBytes(e engine) int64 {
	if e.d.Has(ioengine.FlagNoIO) {
		return 0
	}
	return libaioTestBS
}

// patternFileTail is patternFile with tail bytes of one more block.
func patternFileTail(t *testing.T, dir string, n int64, tail int) string {
	t.Helper()
	path := patternFile(t, dir, n+1)
	if err := os.Truncate(path, n*libaioTestBS+int64(tail)); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestLoopCountsEveryEngineAlike runs 512 random reads and writes at
// iodepth 8 (1 on an engine without a queue): the loop counts exactly the
// units the engine gave back, with their bytes, and leaves none taken.
func TestLoopCountsEveryEngineAlike(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e engine, path func(int64, int) string) {
		blocks, ios := int64(256), int64(512)
		if e.name() == "exec" {
			blocks, ios = 8, 16 // exec waits 50 ms in each unit, as fio's: 512 of them would be 25 s
		}
		rw := RandRW
		if movesNoData(e) {
			rw = RandWrite
		}
		wl := &workload{Workload: Workload{RW: rw, RWMixRead: 50, BS: libaioTestBS, Size: blocks * libaioTestBS, IODepth: 8,
			NumJobs: 1, Buffer: Buffer{Kind: BufferRandom}, Seed: 11, Loops: int(ios / blocks)}}
		w, l, c := loopOnEngine(t, e, wl, path(blocks, 0), nil)
		if w.err != nil {
			t.Fatal(w.err)
		}
		counted := w.ios[dirRead] + w.ios[dirWrite]
		if counted != ios || counted != c.completed+c.back || c.completed+c.queued != ios {
			t.Errorf("%d I/Os counted; the engine completed %d in Queue, queued %d and gave back %d; want %d of each way",
				counted, c.completed, c.queued, c.back, ios)
		}
		if b := w.bytes[dirRead] + w.bytes[dirWrite]; b != c.bytes || b != ios*unitBytes(e) {
			t.Errorf("%d bytes counted, the engine moved %d, want %d", b, c.bytes, ios*unitBytes(e))
		}
		if l.taken() != 0 || l.nFree != len(l.units) || w.short != [2]int64{} || c.left != 0 || c.leftErr != nil {
			t.Errorf("%d units taken, %d of %d free, %v short after the run; the engine gave %d more (%v)",
				l.taken(), l.nFree, len(l.units), w.short, c.left, c.leftErr)
		}
	})
}

// TestLoopCountsShortReads reads a region of 17 blocks over a file that
// ends half-way into the 17th: 17 reads, the last one short, with the
// bytes the file had. null, which opens no file, has no end: 17 whole
// reads.
func TestLoopCountsShortReads(t *testing.T) {
	const blocks = 16
	// An engine that moves no bytes (falloc, ftruncate, cpuio, exec) has no
	// end of file for a read to stop at: the case does not apply to it.
	movesBytes := func(e engine) bool { return !movesNoData(e) && !e.d.Has(ioengine.FlagNoIO) }
	forEachEngineWhere(t, movesBytes, func(t *testing.T, e engine, path func(int64, int) string) {
		wl := &workload{Workload: Workload{RW: Read, BS: libaioTestBS, Size: (blocks + 1) * libaioTestBS, IODepth: 4,
			NumJobs: 1, Buffer: Buffer{Kind: BufferRandom}, Seed: 3}}
		w, _, _ := loopOnEngine(t, e, wl, path(blocks, libaioTestBS/2), nil)
		if w.err != nil {
			t.Fatal(w.err)
		}
		short, bytes := int64(1), int64(blocks*libaioTestBS+libaioTestBS/2)
		if e.name() == EngineNull {
			short, bytes = 0, (blocks+1)*libaioTestBS
		}
		if w.ios[dirRead] != blocks+1 || w.short[dirRead] != short || w.bytes[dirRead] != bytes {
			t.Errorf("%d reads, %d short, %d bytes; want %d, %d and %d", w.ios[dirRead], w.short[dirRead], w.bytes[dirRead],
				blocks+1, short, bytes)
		}
	})
}

// TestLoopStopsWithNothingInFlight stops a time-based run from its context
// while its queue is full: the loop reaps every unit in flight before it
// returns, counts each the engine gave back, and the engine has none left.
func TestLoopStopsWithNothingInFlight(t *testing.T) {
	const blocks, depth = 1024, 32
	forEachEngine(t, func(t *testing.T, e engine, path func(int64, int) string) {
		rw, dir := RandRead, dirRead
		if movesNoData(e) {
			rw, dir = RandWrite, dirWrite
		}
		wl := &workload{Workload: Workload{RW: rw, BS: libaioTestBS, Size: blocks * libaioTestBS, IODepth: depth,
			NumJobs: 1, Buffer: Buffer{Kind: BufferRandom}, Seed: 5, TimeBased: true, Runtime: time.Minute}}
		w, l, c := loopOnEngine(t, e, wl, path(blocks, 0), func(cancel func()) { time.AfterFunc(100*time.Millisecond, cancel) })
		if w.err != nil {
			t.Fatal(w.err)
		}
		left, err := c.left, c.leftErr
		if !w.stoppedEarly || w.ios[dir] == 0 || l.taken() != 0 || l.nFree != len(l.units) || left != 0 || err != nil {
			t.Errorf("stopped early %v after %d I/Os; %d units taken, %d of %d free, %d more from the engine (%v): want none in flight",
				w.stoppedEarly, w.ios[dir], l.taken(), l.nFree, len(l.units), left, err)
		}
		if w.ios[dir] != c.completed+c.back || c.completed+c.queued != c.completed+c.back {
			t.Errorf("%d I/Os counted; the engine completed %d in Queue, queued %d and gave back %d", w.ios[dir], c.completed, c.queued, c.back)
		}
	})
}
