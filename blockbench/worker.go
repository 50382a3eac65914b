package blockbench

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/clydebench/clyde/internal/latency"
	"github.com/clydebench/clyde/internal/liveline"
	"github.com/clydebench/clyde/internal/osio"
)

// Directions index per-direction counters.
const (
	dirRead  = 0
	dirWrite = 1
)

var dirNames = [2]string{"read", "write"}

const (
	// markEvery is the period of a worker's marks: fio's bwavgtime and
	// iopsavgtime, over which its bw_* and iops_* samples are taken. Two
	// consecutive windows make one second of the series.
	markEvery = int64(500 * time.Millisecond)
	// marksPerSample is how many mark windows one sample of the per-second
	// series spans.
	marksPerSample = int(int64(time.Second) / markEvery)
	// checkInterval bounds how long a worker goes without looking at its context
	// and deadline, so ^C stops a run within a tenth of a second.
	checkInterval = int64(100 * time.Millisecond)
)

// mark is a worker's cumulative counters at one instant; consecutive marks
// give fio's 500 ms samples and the per-second series without touching the
// I/O loop more than twice a second.
type mark struct {
	atNs  int64
	ios   [2]int64
	bytes [2]int64
}

// Latency recorders of a worker, in the order lanes merges them.
const (
	recLat  = 0 // lat: from setup to completion (read, write)
	recClat = 2 // clat: from submission to completion
	recSlat = 4 // slat: from setup to submission
	recSync = 6 // the fsync and fdatasync calls of fsync= and fdatasync=
	nRecs   = 7
)

// workerStats is everything a worker measured; the runner merges them.
type workerStats struct {
	// recs are lat, clat and slat per direction (recLat+dir ...). An
	// engine without a submission stage (psync) shares the lat recorders
	// as clat and has no slat ones, as fio reports it.
	recs  [nRecs]*latency.Recorder
	ios   [2]int64
	bytes [2]int64
	short [2]int64
	syncs int64
	// datasyncs counts fdatasync calls (timed with the fsyncs, counted apart).
	datasyncs int64
	// verify is the write pass's verify state (verify.go); nil without
	// verify=.
	verify *verifyState
	// inflight counts submissions by the I/Os in flight after them, reaped
	// the reap calls by how many completions they took (counthist.go); an
	// engine without a queue counts none.
	inflight countHist
	reaped   countHist
	// submitted counts the submit calls of an engine that can submit
	// several I/Os in one (io_uring, libaio) by how many each took; it
	// stays empty for the others, which submit one per call.
	submitted countHist
	startNs   int64 // measurement start, ns since the job's base
	endNs     int64 // last completion, ns since the job's base
	marks     []mark
	// thread is the worker's own thread's CPU over its measured time.
	thread threadCPU
	// stoppedEarly is true when the context or the group's stop ended the
	// worker before its runtime or its I/O ran out.
	stoppedEarly bool
	err          error
}

// worker runs one of a workload's numjobs clones.
type worker struct {
	workerStats
	spec *workload
	ctx  context.Context
	base time.Time
	h    osio.File
	// loop drives the worker's engine (loop.go); nil until prepared.
	loop *ioLoop
	rng  *rand.PCG
	// index is the worker's number within its workload.
	index uint64
	// stop, when set, ends the worker at its next tick: the group has
	// what it needs (steady state reached).
	stop *atomic.Bool
	// live, when set, is the lock under which marks are appended, so a
	// groupWatch can read them while the worker runs (once a second).
	live *sync.Mutex
	// hs are a volume's descriptors (hs[0] is h), lun the one the last
	// drawn I/O goes to (volume.go); nil and 0 otherwise.
	hs  []osio.File
	lun int
	// split is true when the engine has a submission stage, so clat and
	// slat are apart from lat.
	split bool
	// pattern draws each I/O's direction, offset and size: fio's rw modes
	// (fioPattern) unless the workload brings its own.
	pattern ioPattern
	// rec, when set, is the workload's record hook (record.go); recIO
	// says it sees every completion (false costs a compare per I/O), and
	// recNext is when its next window is due.
	rec     IORecorder
	recIO   bool
	recNext int64
	// fill regenerates write buffers before every write (fio's
	// refill_buffers); nil keeps the buffers filled once.
	fill *rand.PCG
	// dropEvery is a pass over the region in I/Os: a time-based buffered
	// workload with Invalidate drops the file's cache after each, as fio
	// invalidates it each time it reopens the file for another pass;
	// nextDrop is the I/O count of the next drop. 0: never.
	dropEvery, nextDrop int64
	// paused is set by a pattern that waited before the I/O it drew (an
	// access specification's delay): the engine's clock reading from
	// before the draw is stale.
	paused bool
	// snap, when set, is where tick publishes the counters for the
	// progress line.
	snap *liveline.Counts

	// Fixed per job.
	mixed     bool
	mixRead   uint64
	fixedDir  int
	random    bool
	nBlocks   uint64
	regionEnd int64
	pos       [2]int64 // next sequential offset per direction
	// perm, when the workload keeps fio's random map, draws every block
	// of the region once per pass (internal/offsets, randommap.go).
	perm *blockPerm
	// dist draws random blocks from fio's random_distribution (nil:
	// uniform); zone is the place in fio's strided zones when zoned;
	// drawBlocks is the blocks a random draw spans (distribution.go).
	dist       *offsetDraw
	zone       zoneWalk
	zoned      bool
	drawBlocks uint64

	// Loop control: tick runs when now passes nextEvent.
	measuring bool
	rampEnd   int64
	deadline  int64 // 0: none
	nextMark  int64
	nextEvent int64
	remaining int64 // I/Os left to issue; MaxInt64 when time-based
	ioLimit   int64
	sinceSync int
	// paced is set when thinktime or a rate makes the worker wait
	// (pace.go); sinceThink counts I/Os toward the next thinktime.
	paced      bool
	sinceThink int
	// minRate, when the workload has a minimum rate, is its checks'
	// state (minrate.go); nil otherwise.
	minRate *minRate
	// flowCount is the worker's I/Os counted in its flow; gate is its
	// group's wait_for and exitall state and set its workload's index
	// there; started says it began its work (past startdelay and
	// wait_for), halted that exitall stopped it; shifted is how far its
	// start was moved (jobflow.go, minrate.go).
	flowCount int64
	gate      *jobGate
	set       int
	started   atomic.Bool
	halted    atomic.Bool
	shifted   int64
}

// newWorker makes worker index of a workload (its clone index counted
// in): its recorders, how it draws each I/O, when it ends, and its first
// event, the end of the ramp or the start of measuring.
func newWorker(spec *workload, index int) *worker {
	w := &worker{spec: spec, index: uint64(index), h: osio.NoFile, split: splitsAt(spec.engine, spec.depth)}
	w.index = uint64(spec.CloneIndex + index)
	w.rng = newRand(spec.Seed, w.index+1)
	w.makeRecorders()
	w.inflight, w.reaped, w.submitted = newCountHist(spec.depth), newCountHist(spec.depth), newCountHist(spec.depth)
	if spec.Buffer.Refill && spec.RW.Writes() {
		w.fill = newRand(spec.Seed^0xf111, w.index+1)
	}
	w.setupPattern()
	if spec.Verify != VerifyNone {
		w.startVerify()
	}
	w.setupLimits()
	w.paced = spec.ThinkTime > 0 || spec.Rate != [2]int64{} || spec.RateIOPS != [2]int64{}
	w.startMinRate()
	w.marks = make([]mark, 0, markCapacity(spec.Runtime))
	if spec.watch != nil {
		spec.watch.add(w)
	}
	if w.rampEnd == 0 {
		w.startMeasuring(0)
	} else {
		w.nextEvent = min(w.rampEnd, checkInterval)
	}
	return w
}

// makeRecorders makes the worker's latency recorders: lat, clat and slat
// per direction, clat the lat ones when the engine has no submission
// stage (split), and one for the syncs.
func (w *worker) makeRecorders() {
	for d := range 2 {
		w.recs[recLat+d] = latency.New()
		w.recs[recClat+d] = w.recs[recLat+d]
		if w.split {
			w.recs[recClat+d] = latency.New()
			w.recs[recSlat+d] = latency.New()
		}
	}
	w.recs[recSync] = latency.New()
}

// setupPattern fixes the worker's directions and region in blocks and
// picks the pattern that draws each I/O: fio's rw modes, an access
// specification's, varying sizes' or fio's sequential gaps.
func (w *worker) setupPattern() {
	spec := w.spec
	w.pattern = fioPattern{}
	if spec.Access != nil {
		w.pattern = newDrawnPattern(w)
	}
	w.mixed = spec.RW.Mixed()
	w.mixRead = uint64(spec.RWMixRead)
	w.random = spec.RW.Random()
	if spec.RW.Writes() && !w.mixed {
		// Trims are counted in the write slot and reported as fio's
		// trim direction (trim.go).
		w.fixedDir = dirWrite
	}
	w.nBlocks = uint64(spec.Size / spec.BS)
	w.regionEnd = spec.Offset + int64(w.nBlocks)*spec.BS
	if spec.vmap != nil {
		w.useVolume()
	}
	w.pos = [2]int64{spec.Offset, spec.Offset}
	if spec.Sizes == nil {
		w.setupDraws()
	} else {
		w.pattern = newSizedPattern(w)
	}
	if spec.Access == nil && (spec.SeqGap != 0 || spec.SeqRepeat > 1) {
		w.pattern = newSeqPattern(w)
	}
}

// setupLimits fixes when the worker ends: the end of its ramp, its
// deadline and its I/O limit (a file set's or varying sizes' pattern ends
// passes itself), and how often a buffered pass drops the file's cache.
func (w *worker) setupLimits() {
	spec := w.spec
	w.rampEnd = int64(spec.RampTime)
	if spec.Runtime > 0 {
		w.deadline = w.rampEnd + int64(spec.Runtime)
	}
	w.ioLimit = math.MaxInt64
	if !spec.TimeBased {
		// trimwrite trims and then writes each block: two I/Os a block,
		// as fio doubles number_ios (backend.c).
		w.ioLimit = int64(w.nBlocks) * int64(max(1, spec.Loops)) * int64(trimWriteIOs(spec.RW))
		if n := spec.Region.ioBytes(spec.Size); n > 0 {
			w.ioLimit = ioSizeLimit(n, spec.BS, w.nBlocks, spec.Loops) // region.go
		}
	}
	if spec.fileRegs != nil {
		// The pattern picks each I/O's file, ends each pass and the
		// job, and drops a file's cache when it is reopened (files.go).
		w.pattern, w.ioLimit = newFilesPattern(w), math.MaxInt64
	}
	if spec.NumberIOs > 0 && !spec.TimeBased {
		// fio's number_ios: the I/Os of all passes, cut short of the
		// region's end (jobflow.go).
		w.ioLimit = min(w.ioLimit, spec.NumberIOs*int64(max(1, spec.Loops)))
	}
	w.remaining = math.MaxInt64
	if spec.Invalidate && !spec.Direct && spec.fileRegs == nil && (spec.TimeBased || w.ioLimit > int64(w.nBlocks)) && osio.CanAdviseAccess && !spec.Diskless() {
		w.dropEvery = int64(w.nBlocks) * int64(trimWriteIOs(spec.RW))
	}
	if spec.Sizes != nil {
		// The pattern ends each pass and the job, and drops the cache
		// between passes (sizedraw.go).
		w.ioLimit, w.dropEvery = math.MaxInt64, 0
	}
}

// publish stores the worker's counters for the progress line as of now
// (since the worker's base). The worker calls it in tick (at most every
// checkEvery), never per I/O; the progress goroutine reads them.
func (w *worker) publish(now int64) {
	w.snap.Publish(w.ios[dirRead]+w.ios[dirWrite], w.bytes[dirRead]+w.bytes[dirWrite], now)
}

// latencies are the worker's recorders for lanes to merge.
func (w *worker) latencies() []*latency.Recorder { return w.recs[:] }

// dataRand is the stream for buffer contents, apart from the one that draws
// offsets and directions, so every engine issues the same I/O sequence for
// the same seed however many buffers it fills.
func (w *worker) dataRand() *rand.PCG { return newRand(w.spec.Seed^0xda7a, w.index+1) }

func (w *worker) now() int64 { return int64(time.Since(w.base)) }

// fail records the worker's first error.
func (w *worker) fail(err error) {
	if w.err == nil {
		w.err = err
	}
}

// startMeasuring ends the ramp: what was counted so far is dropped.
func (w *worker) startMeasuring(now int64) {
	w.measuring = true
	for _, r := range w.recs {
		if r != nil {
			r.Reset()
		}
	}
	w.ios, w.bytes, w.short, w.syncs, w.datasyncs = [2]int64{}, [2]int64{}, [2]int64{}, 0, 0
	clear(w.inflight)
	clear(w.reaped)
	clear(w.submitted)
	w.nextDrop = w.dropEvery
	w.resetDrawer()
	if p, ok := w.pattern.(*sizedPattern); ok {
		p.restart() // sizedraw.go
	}
	w.startNs, w.endNs = now, now
	if w.rec != nil {
		w.recNext = w.rec.Start(now)
	}
	if w.live != nil {
		w.live.Lock()
	}
	w.marks = append(w.marks[:0], mark{atNs: now})
	if w.live != nil {
		w.live.Unlock()
	}
	w.nextMark = now + markEvery
	w.remaining = w.ioLimit
	w.nextEvent = w.nextEventAfter(now)
}

func (w *worker) nextEventAfter(now int64) int64 {
	next := now + checkInterval
	if w.measuring {
		next = min(next, w.nextMark)
		if w.rec != nil {
			next = min(next, w.recNext)
		}
	} else {
		next = min(next, w.rampEnd)
	}
	if w.deadline > 0 {
		next = min(next, w.deadline)
	}
	return next
}

// tick runs at most every checkInterval, never per I/O: it ends the ramp, takes
// the marks and the record's windows, and says whether to stop issuing
// I/O.
func (w *worker) tick(now int64) (stop bool) {
	if !w.measuring && now >= w.rampEnd {
		w.startMeasuring(now)
		w.startThreadCPU()
	}
	if w.measuring && w.rec != nil && now >= w.recNext {
		w.recNext = w.rec.Window(now, w.totals())
	}
	if w.measuring && now >= w.nextMark {
		w.addMark(mark{atNs: now, ios: w.ios, bytes: w.bytes})
		for w.nextMark <= now {
			w.nextMark += markEvery
		}
	}
	w.nextEvent = w.nextEventAfter(now)
	if w.snap != nil {
		w.publish(now)
	}
	if w.deadline > 0 && now >= w.deadline {
		return true
	}
	if w.minRate != nil && w.measuring && !w.checkMinRate(now) {
		return true
	}
	if w.stopped() {
		w.stoppedEarly = true
		return true
	}
	return false
}

// stopped says whether the run, the group's stop or exitall ended the
// worker.
func (w *worker) stopped() bool {
	return w.ctx.Err() != nil || (w.stop != nil && w.stop.Load()) || w.halted.Load()
}

// finish closes the series and the record with the last completion.
func (w *worker) finish() {
	if !w.measuring {
		return
	}
	last := w.marks[len(w.marks)-1]
	if w.endNs > last.atNs {
		w.addMark(mark{atNs: w.endNs, ios: w.ios, bytes: w.bytes})
	}
	if w.rec != nil {
		w.rec.Finish(w.endNs, w.totals())
	}
}

// addMark appends a per-second mark, under the watch's lock when a
// groupWatch reads them.
func (w *worker) addMark(m mark) {
	if w.live != nil {
		w.live.Lock()
		defer w.live.Unlock()
	}
	w.marks = append(w.marks, m)
}

// ioPattern draws the I/O a worker issues next. Engines call it once per
// I/O; an implementation must not allocate.
type ioPattern interface {
	// next is the direction, offset and size of the next I/O.
	next(w *worker) (dir int, off int64, size int)
	// maxSize is the largest size next returns: what buffers are made for.
	maxSize(w *worker) int
}

// fioPattern is fio's rw modes: a fixed block size, the direction drawn by
// rwmixread for mixed modes, offsets at random or in sequence.
type fioPattern struct{}

func (fioPattern) next(w *worker) (int, int64, int) {
	dir := w.pickDir()
	return dir, w.nextOffset(dir), int(w.spec.BS)
}

func (fioPattern) maxSize(w *worker) int { return int(w.spec.BS) }

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
	if w.zoned {
		return w.zonedOffset(dir)
	}
	if w.random {
		return w.spec.Offset + int64(w.randomBlock(dir))*w.spec.BS
	}
	off := w.pos[dir]
	next := off + w.spec.BS
	if next >= w.regionEnd {
		next = w.spec.Offset
	}
	w.pos[dir] = next
	return off
}

// complete counts one finished I/O of want bytes at off that moved n, set
// up at prepNs, submitted at submitNs and completed at doneNs: the one place
// every engine's completions are counted. It issues the fsync --fsync asks
// for, and returns false when that fails.
func (w *worker) complete(dir, n, want int, off, prepNs, submitNs, doneNs int64) bool {
	if n != want {
		w.short[dir]++
	}
	if w.recIO && w.measuring {
		w.rec.IO(IORecord{Dir: dir, Bytes: n, Offset: off, PrepNs: prepNs, SubmitNs: submitNs, DoneNs: doneNs})
	}
	w.recs[recLat+dir].Record(time.Duration(doneNs - prepNs))
	if w.split {
		w.recs[recClat+dir].Record(time.Duration(doneNs - submitNs))
		w.recs[recSlat+dir].Record(time.Duration(submitNs - prepNs))
	}
	w.ios[dir]++
	w.bytes[dir] += int64(n)
	w.endNs = doneNs
	if done := w.ios[dirRead] + w.ios[dirWrite]; w.dropEvery > 0 && done >= w.nextDrop && done < w.ioLimit {
		// The pass is over: fio reopens the file for the next one and
		// invalidates its cache then, before the next I/O.
		w.dropPass()
	}
	if dir == dirWrite && (w.spec.Fsync > 0 || w.spec.Fdatasync > 0) && !w.syncAfterWrite() {
		return false
	}
	if w.paced {
		w.pace(dir, doneNs)
	}
	return true
}

// sync issues one fsync and times it into fio's "sync" direction; false
// means it failed and the worker's error says how.
func (w *worker) sync() bool { return w.timedSync(false) }

// timedSync issues one fsync, or with data one fdatasync, timed into fio's
// "sync" latency and counted apart (syncs, datasyncs).
func (w *worker) timedSync(data bool) bool {
	what, count := "fsync", &w.syncs
	if data {
		what, count = "fdatasync", &w.datasyncs
	}
	t0 := w.now()
	if err := w.fileSync(data); err != nil {
		w.fail(fmt.Errorf("%s: %w", what, err))
		return false
	}
	t1 := w.now()
	w.recs[recSync].Record(time.Duration(t1 - t0))
	*count++
	w.endNs = max(w.endNs, t1)
	return true
}

// fileSync is one fsync, or with data one fdatasync, of the worker's file
// as its engine makes it, as fio queues DDIR_SYNC to the engine: mmap's
// msync(MS_SYNC), posixaio's aio_fsync, null's immediate completion.
func (w *worker) fileSync(data bool) error { return w.loop.fileSync(data) }

func (w *worker) close() {
	if w.loop != nil {
		w.loop.close()
		w.loop = nil
	}
	if w.h.Valid() {
		_ = w.h.Close() // read-only or already synced; a close error changes no figure
		w.h = osio.NoFile
	}
	for _, h := range w.hs[min(1, len(w.hs)):] {
		_ = h.Close()
	}
	w.hs = nil
}

// markCapacity is how many marks to allocate up front for a run of d: at
// most an hour of them. A longer run grows the slice as it goes;
// preallocating for --runtime 100000h asked for 28 GB at once and crashed.
func markCapacity(d time.Duration) int {
	return int(min(max(int64(d), 0), int64(time.Hour))/markEvery) + 3
}
