package blockbench

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/clydebench/clyde/internal/latency"
)

// Directions index per-direction counters.
const (
	dirRead  = 0
	dirWrite = 1
)

var dirNames = [2]string{"read", "write"}

const (
	// markEvery is the period of the per-second series.
	markEvery = int64(time.Second)
	// checkEvery bounds how long a worker goes without looking at its context
	// and deadline, so ^C stops a run within a tenth of a second.
	checkEvery = int64(100 * time.Millisecond)
)

// mark is a worker's cumulative counters at one instant; consecutive marks
// give the per-second series without touching the I/O loop more than twice
// a second.
type mark struct {
	atNs  int64
	ios   [2]int64
	bytes [2]int64
}

// workerStats is everything a worker measured; the runner merges them.
type workerStats struct {
	lat     [2]*latency.Recorder
	ios     [2]int64
	bytes   [2]int64
	short   [2]int64
	syncs   int64
	startNs int64 // measurement start, ns since the job's base
	endNs   int64 // last completion, ns since the job's base
	marks   []mark
	// interrupted is true when the context ended the worker early.
	interrupted bool
	err         error
}

// worker runs one of a job's numjobs clones.
type worker struct {
	workerStats
	spec *jobSpec
	ctx  context.Context
	base time.Time
	h    fileHandle
	rng  *rand.PCG
	ring *uring // io_uring engine only
	// index is the worker's number within its job.
	index uint64

	// Fixed per job.
	mixed     bool
	mixRead   uint64
	fixedDir  int
	random    bool
	nBlocks   uint64
	regionEnd int64
	pos       [2]int64 // next sequential offset per direction

	// Loop control: tick runs when now passes nextEvent.
	measuring  bool
	rampEnd    int64
	deadline   int64 // 0: none
	nextMark   int64
	nextEvent  int64
	remaining  int64 // I/Os left to issue; MaxInt64 when time-based
	ioLimit    int64
	sinceSync  int
	rbuf, wbuf []byte
}

func newWorker(ctx context.Context, spec *jobSpec, index int, h fileHandle) *worker {
	w := &worker{spec: spec, ctx: ctx, h: h, index: uint64(index)}
	w.rng = newRand(spec.seed, uint64(index)+1)
	w.lat = [2]*latency.Recorder{latency.New(), latency.New()}
	w.mixed = spec.rw.Mixed()
	w.mixRead = uint64(spec.rwMixRead)
	w.random = spec.rw.Random()
	if spec.rw == Write || spec.rw == RandWrite {
		w.fixedDir = dirWrite
	}
	w.nBlocks = uint64(spec.size / spec.bs)
	w.regionEnd = spec.offset + int64(w.nBlocks)*spec.bs
	w.pos = [2]int64{spec.offset, spec.offset}
	w.rampEnd = int64(spec.rampTime)
	if spec.runtime > 0 {
		w.deadline = w.rampEnd + int64(spec.runtime)
	}
	w.ioLimit = math.MaxInt64
	if !spec.timeBased {
		w.ioLimit = int64(w.nBlocks)
	}
	w.remaining = math.MaxInt64
	w.marks = make([]mark, 0, int(spec.runtime/time.Second)+3)
	if w.rampEnd == 0 {
		w.startMeasuring(0)
	} else {
		w.nextEvent = min(w.rampEnd, checkEvery)
	}
	if spec.engine == EnginePsync {
		w.rbuf = alignedBuffer(int(spec.bs))
		w.wbuf = alignedBuffer(int(spec.bs))
		fillBuffer(w.wbuf, spec.buffer, w.dataRand())
	}
	return w
}

// dataRand is the stream for buffer contents, apart from the one that draws
// offsets and directions, so every engine issues the same I/O sequence for
// the same seed however many buffers it fills.
func (w *worker) dataRand() *rand.PCG { return newRand(w.spec.seed^0xda7a, w.index+1) }

func (w *worker) now() int64 { return int64(time.Since(w.base)) }

// startMeasuring ends the ramp: what was counted so far is dropped.
func (w *worker) startMeasuring(now int64) {
	w.measuring = true
	w.lat[0].Reset()
	w.lat[1].Reset()
	w.ios, w.bytes, w.short, w.syncs = [2]int64{}, [2]int64{}, [2]int64{}, 0
	w.startNs, w.endNs = now, now
	w.marks = append(w.marks[:0], mark{atNs: now})
	w.nextMark = now + markEvery
	w.remaining = w.ioLimit
	w.nextEvent = w.nextEventAfter(now)
}

func (w *worker) nextEventAfter(now int64) int64 {
	next := now + checkEvery
	if w.measuring {
		next = min(next, w.nextMark)
	} else {
		next = min(next, w.rampEnd)
	}
	if w.deadline > 0 {
		next = min(next, w.deadline)
	}
	return next
}

// tick runs at most every checkEvery, never per I/O: it ends the ramp, takes
// the per-second marks, and says whether to stop issuing I/O.
func (w *worker) tick(now int64) (stop bool) {
	if !w.measuring && now >= w.rampEnd {
		w.startMeasuring(now)
	}
	if w.measuring && now >= w.nextMark {
		w.marks = append(w.marks, mark{atNs: now, ios: w.ios, bytes: w.bytes})
		for w.nextMark <= now {
			w.nextMark += markEvery
		}
	}
	w.nextEvent = w.nextEventAfter(now)
	if w.deadline > 0 && now >= w.deadline {
		return true
	}
	if w.ctx.Err() != nil {
		w.interrupted = true
		return true
	}
	return false
}

// finish closes the series with the last completion.
func (w *worker) finish() {
	if !w.measuring {
		return
	}
	last := w.marks[len(w.marks)-1]
	if w.endNs > last.atNs {
		w.marks = append(w.marks, mark{atNs: w.endNs, ios: w.ios, bytes: w.bytes})
	}
}

// pickDir draws the direction of the next I/O: for mixed modes each I/O on
// its own, with probability rwmixread of being a read.
func (w *worker) pickDir() int {
	if !w.mixed {
		return w.fixedDir
	}
	if below(w.rng, 100) < w.mixRead {
		return dirRead
	}
	return dirWrite
}

// nextOffset is the next block-aligned offset in the region for dir.
func (w *worker) nextOffset(dir int) int64 {
	if w.random {
		return w.spec.offset + int64(below(w.rng, w.nBlocks))*w.spec.bs
	}
	off := w.pos[dir]
	next := off + w.spec.bs
	if next >= w.regionEnd {
		next = w.spec.offset
	}
	w.pos[dir] = next
	return off
}

// runPsync is the synchronous loop: one pread or pwrite at a time. Nothing
// in it allocates; latency goes into this worker's own recorder.
func (w *worker) runPsync() {
	bs := int(w.spec.bs)
	fsync := w.spec.fsync
	t0 := w.now()
	if t0 >= w.nextEvent && w.tick(t0) {
		return
	}
	for {
		dir := w.pickDir()
		off := w.nextOffset(dir)
		var n int
		var err error
		if dir == dirRead {
			n, err = w.h.pread(w.rbuf, off)
		} else {
			n, err = w.h.pwrite(w.wbuf, off)
		}
		t1 := w.now()
		if err != nil {
			w.err = fmt.Errorf("%s %d bytes at offset %d: %w", dirNames[dir], bs, off, err)
			return
		}
		if n != bs {
			w.short[dir]++
		}
		w.lat[dir].Record(time.Duration(t1 - t0))
		w.ios[dir]++
		w.bytes[dir] += int64(n)
		w.endNs = t1
		if fsync > 0 && dir == dirWrite {
			if w.sinceSync++; w.sinceSync >= fsync {
				if err := w.h.sync(); err != nil {
					w.err = fmt.Errorf("fsync: %w", err)
					return
				}
				w.syncs++
				w.sinceSync = 0
			}
		}
		w.remaining--
		if w.remaining <= 0 {
			return
		}
		if t1 >= w.nextEvent && w.tick(t1) {
			return
		}
		t0 = w.now()
	}
}

func (w *worker) close() {
	if w.ring != nil {
		w.ring.close()
		w.ring = nil
	}
	_ = w.h.close() // read-only or already synced; a close error changes no figure
}
