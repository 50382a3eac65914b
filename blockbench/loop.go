package blockbench

import (
	"fmt"
	"time"

	"github.com/clydebench/clyde/internal/ioengine"
	"github.com/clydebench/clyde/internal/osio"
)

// This file is the core loop every engine runs through: fio 3.33's do_io
// (backend.c) with its batching options, driving an internal/ioengine
// engine through Queue, Commit and GetEvents as fio drives an ioengine_ops.
// The loop owns the units, which are free, queued or in flight, the depth
// accounting (w.inflight, w.submitted, w.reaped), fio's batching rules,
// ramp, deadline and stop (w.tick), and every completion goes through
// w.complete: the one place I/O is counted, timed, recorded, paced and
// synced. Each rule cites the fio function it comes from. Without the
// batching knobs (SubmitBatch, LowWater, ReapMin, ReapPoll) the rules are
// fio's defaults: one I/O per submit call, a reap of at least one once the
// queue is full. Nothing in the loop allocates.

// unitState is what the loop keeps of a unit beside what its engine sees:
// the direction slot it is counted in, when it was set up and when
// submitted.
type unitState struct {
	prepNs, submitNs int64
	dir              int
}

// ioLoop is one worker's side of its engine.
type ioLoop struct {
	e     ioengine.Engine
	units []ioengine.Unit
	state []unitState
	// rbuf and wbuf are each unit's buffers: one for both directions on a
	// queueing engine; apart on a synchronous one (fio's psync io_us), so
	// a read never changes what the next write writes.
	rbuf, wbuf [][]byte
	free       []int32 // stack of free unit indexes, free[:nFree]
	nFree      int
	// pend are the units queued and not yet committed, in queue order
	// (pN of them from pHead); inflight those submitted and not reaped.
	pend      []int32
	pHead, pN int
	inflight  int
	ops       [2]ioengine.Op // each direction slot's operation
	syncUnit  ioengine.Unit
	commits   bool // the engine has a commit stage (ioengine.FlagCommits)
	sync      bool // every unit completes in Queue (no submission stage)
	split     bool // a submission stage apart: slat and clat apart
	failed    bool // the engine failed: nothing more can be reaped
	noIO      bool // the engine does no I/O (ioengine.FlagNoIO): units of 0 bytes
	// think is the engine's pause after each unit (ioengine.Thinker),
	// nil for one that asks for none.
	think      ioengine.Thinker
	eagainNs   int64
	batchState // fio's batching options after its fixups
}

// batchState is fio's batching: its options after fixups, and fio's
// td->io_u_queued.
type batchState struct {
	depth   int // units queued or in flight at most
	batch   int // iodepth_batch
	low     int // iodepth_low
	reapMin int // iodepth_batch_complete_min (0: poll)
	reapMax int // iodepth_batch_complete_max
	// polling is backend.c's io_in_polling: complete_min and complete_max
	// both 0, so the loop reaps after every submission.
	polling bool
	// ioQueued is fio's td->io_u_queued: units queued since the last
	// td_io_commit. The commit td_io_getevents makes itself does not
	// clear it (ioengines.c), so the next td_io_commit comes sooner and
	// counts, in the depth distribution, units already submitted.
	ioQueued int
}

// prepare opens the engine for w and readies the loop before the workers
// start, so neither counts in the measured time.
func (e engine) prepare(w *worker) (*ioLoop, error) {
	eng, err := w.openEngine(e)
	if err != nil {
		return nil, err
	}
	return newLoop(w, eng), nil
}

// newLoop readies w's units for its engine e: as many as the loop keeps in
// flight, each with a buffer of the pattern's largest size filled from the
// worker's data stream in unit order.
func newLoop(w *worker, e ioengine.Engine) *ioLoop {
	l := &ioLoop{e: e, commits: w.spec.engine.d.Has(ioengine.FlagCommits), sync: !w.split, split: w.split,
		ops: [2]ioengine.Op{ioengine.Read, ioengine.Write}}
	l.batchState = newBatchState(w.spec)
	l.noIO = w.spec.engine.d.Has(ioengine.FlagNoIO)
	if t, ok := e.(ioengine.Thinker); ok {
		l.think, w.paced = t, true // pace.go waits as the engine asks
	}
	l.syncUnit.Index = w.spec.depth
	n := l.depth
	l.units, l.state, l.free, l.pend = make([]ioengine.Unit, n), make([]unitState, n), make([]int32, n), make([]int32, n)
	l.rbuf, l.wbuf = make([][]byte, n), make([][]byte, n)
	data, size := w.dataRand(), w.pattern.maxSize(w)
	for i := range n {
		l.units[i].Index = i
		l.free[i] = int32(n - 1 - i)
		l.wbuf[i] = osio.AlignedBuffer(size)
		fillBuffer(l.wbuf[i], w.spec.Buffer, data)
		l.rbuf[i] = l.wbuf[i]
		if l.sync {
			l.rbuf[i] = osio.AlignedBuffer(size)
		}
	}
	l.nFree = n
	switch {
	case w.spec.RW.Trims():
		l.ops = [2]ioengine.Op{ioengine.Trim, ioengine.Trim}
	case w.spec.RW.TrimsThenWrites():
		l.ops = [2]ioengine.Op{ioengine.Trim, ioengine.Write}
		w.pattern = &trimWritePattern{ioPattern: w.pattern}
	}
	return l
}

// batched says whether the workload asks for fio's batching: a knob that,
// after fio's fixups, does something else than fio's defaults.
func (w *Workload) batched() bool {
	deep := w.IODepth > 1
	return (deep && (w.SubmitBatch > 1 || w.ReapMin > 1)) || (w.LowWater > 0 && w.LowWater < w.IODepth) || w.ReapPoll
}

// validateBatch holds the batching knobs to the engines that run them and
// to sane values.
func (w *Workload) validateBatch() error {
	switch {
	case w.SubmitBatch < 0 || w.LowWater < 0 || w.ReapMin < 0 || w.IODepthBatchCompleteMax < 0:
		return usagef("batching", "workload %s: a negative batch, low-water mark or reap size", w.Name)
	case w.ReapPoll && w.ReapMin > 0:
		return usagef("batching", "workload %s: ReapPoll reaps without waiting, so ReapMin %d means nothing; give one of them", w.Name, w.ReapMin)
	case w.batched() && w.IOEngine != EngineIOUring && w.IOEngine != EngineLibaio:
		return usagef("batching (fio's iodepth_batch_submit, iodepth_batch_complete_min, iodepth_low)", "workload %s: engine %s does not submit or reap in batches; batching runs on io_uring and libaio", w.Name, w.IOEngine)
	}
	return nil
}

// newBatchState is fio's batching options after its fixups (init.c,
// fixup_options); without them, fio's defaults and the engine's reap
// (reapMax). An engine that holds one unit at a time has a queue of one.
func newBatchState(w *workload) batchState {
	depth := w.depth
	if depth > 1 && w.engine.d.Has(ioengine.FlagOneInFlight) {
		depth = 1
	}
	b := batchState{depth: depth, batch: 1, low: depth, reapMin: 1, reapMax: reapMax(w)}
	if !w.batched() {
		return b
	}
	// "The low water mark cannot be bigger than the iodepth", and 0 is
	// iodepth.
	if b.low = w.LowWater; b.low > depth || b.low == 0 {
		b.low = depth
	}
	// "If batch number isn't set, default to the same as iodepth": fio's
	// own 0 is iodepth (the caller maps it); here 0 is fio's default, 1.
	b.batch = min(max(w.SubmitBatch, 1), depth)
	b.reapMin, b.reapMax = max(w.ReapMin, 1), w.IODepthBatchCompleteMax
	if w.ReapPoll {
		b.reapMin = 0
	}
	// "If max batch complete number isn't set or set incorrectly, default
	// to the same as iodepth_batch_complete_min".
	if b.reapMin > b.reapMax {
		b.reapMax = b.reapMin
	}
	b.polling = b.reapMin == 0 && b.reapMax == 0
	return b
}

// close closes the engine: what is still in flight is waited for.
func (l *ioLoop) close() { _ = l.e.Close() }

// taken is fio's cur_depth: the units queued, submitted, or completed and
// not yet reaped.
func (l *ioLoop) taken() int { return l.pN + l.inflight }

// run is backend.c's do_io for one worker: queue a unit; commit once
// batch are queued (td_io_queue); when the queue is full, or always when
// polling, reap (wait_for_completions); at the end commit what is left
// and wait for everything (do_io's last io_u_queued_complete), also after
// a stop or a failed I/O: the engine must not write into buffers the loop
// no longer holds.
func (l *ioLoop) run(w *worker) {
	now := w.now()
	stopping := now >= w.nextEvent && w.tick(now)
	for !stopping && w.remaining > 0 {
		if w.spec.flow != nil && w.flowHeld() { // jobflow.go
			now, stopping = l.flowWait(w, now)
			continue
		}
		now, stopping = l.issue(w, now)
		if full := l.taken() >= l.depth; !stopping && (full || l.polling) {
			now, stopping = l.waitForCompletions(w, now, full)
		}
		if !stopping && now >= w.nextEvent {
			stopping = w.tick(now)
		}
	}
	for l.taken() > 0 && !l.failed {
		now, _, _ = l.queuedComplete(w, now, l.taken(), true)
	}
	if !stopping {
		w.tick(now)
	}
}

// issue draws the next I/O into a free unit and queues it (td_io_queue):
// a unit the engine completed in the call is counted at once; it returns
// the last clock read and whether to stop.
func (l *ioLoop) issue(w *worker, now int64) (int64, bool) {
	l.nFree--
	i := l.free[l.nFree]
	now = l.draw(w, i, now)
	w.remaining--
	u := &l.units[i]
	if l.e.Queue(u) == ioengine.Queued {
		return l.queued(w, i, now)
	}
	done := w.now()
	l.release(i)
	if l.split {
		l.state[i].submitNs = done // submitted and completed in one call
	}
	return done, !l.finish(w, u, done)
}

// draw sets unit i up for the next I/O: the pattern's direction, offset
// and size, the member of a volume it goes to (w.lun), the write buffer
// refilled (fio fills it before the I/O's clock starts). It returns the
// unit's setup time: a fresh clock read for an engine that completes in
// Queue (fio stamps an I/O once it is set up: a pattern's delay is not
// its latency), the last one otherwise (one clock read per submission),
// unless the pattern waited (an access specification's delay).
func (l *ioLoop) draw(w *worker, i int32, now int64) int64 {
	dir, off, size := w.pattern.next(w)
	if l.noIO {
		size = 0 // fio's FIO_NOIO: the unit moves and counts no bytes
	}
	if l.sync || w.paused {
		now, w.paused = w.now(), false
	}
	u := &l.units[i]
	u.Op, u.File, u.Off = l.ops[dir], w.lun, off
	if u.Op == ioengine.Write {
		u.Buf = l.wbuf[i][:size]
		if w.fill != nil {
			w.refill(u.Buf)
			now = w.now()
		}
	} else {
		u.Buf = l.rbuf[i][:size]
	}
	s := &l.state[i]
	s.dir, s.prepNs, s.submitNs = dir, now, now
	return now
}

// queued counts unit i the engine holds, and commits once batch are
// queued (td_io_queue, td_io_commit): io_u_mark_depth counts the batch at
// the depth it brought the queue to. An engine without a commit stage
// submitted it in Queue (fio's engines without ->commit): stamped as
// issued now, one submit call of one unit.
func (l *ioLoop) queued(w *worker, i int32, now int64) (int64, bool) {
	if l.commits {
		l.pend[(l.pHead+l.pN)%len(l.pend)] = i
		l.pN++
	} else {
		now = w.now()
		l.state[i].submitNs = now
		l.inflight++
		w.markSubmit(1)
	}
	if l.ioQueued++; l.ioQueued < l.batch {
		return now, false
	}
	w.inflight.addN(l.taken(), int64(l.ioQueued))
	l.ioQueued = 0
	return l.commit(w, now)
}

// release puts unit i back on the free stack.
func (l *ioLoop) release(i int32) {
	l.free[l.nFree] = i
	l.nFree++
}

// finish counts one completed unit through w.complete, timed done; false
// when it failed (the worker's error names it) or its sync did.
func (l *ioLoop) finish(w *worker, u *ioengine.Unit, done int64) bool {
	if u.Err != nil {
		return unitFailed(w, u)
	}
	s := &l.state[u.Index]
	if !w.complete(s.dir, u.N, len(u.Buf), u.Off, s.prepNs, s.submitNs, done) {
		return false
	}
	return s.dir != dirRead || w.verify == nil || !w.verify.reads || w.checkRead(u.Buf[:u.N], u.Off)
}

// unitFailed makes a failed unit the worker's error, naming the I/O; it
// returns false, the worker is to stop.
func unitFailed(w *worker, u *ioengine.Unit) bool {
	w.fail(fmt.Errorf("%s %d bytes at offset %d: %w", u.Op, len(u.Buf), u.Off, u.Err))
	return false
}

// commit submits every queued unit (fio_ioring_commit, fio_libaio_commit),
// one submit call after another, each counted in w.submitted by how many
// it took (a call that took none too), its units stamped as issued when it
// returned. ErrAgain leaves the rest for after a reap while units are in
// flight; with none, the loop asks again (stalled). It returns the last
// clock read and whether to stop: a failed call stops the worker, and the
// engine holds none of the units it had not submitted.
func (l *ioLoop) commit(w *worker, now int64) (int64, bool) {
	for l.pN > 0 {
		n, err := l.e.Commit()
		switch {
		case err == ioengine.ErrAgain:
			if l.inflight > 0 {
				l.eagainNs = 0
				return now, false
			}
			if l.stalled(w) {
				return w.now(), true
			}
			continue
		case err != nil:
			w.fail(err)
			l.dropPending()
			return w.now(), true
		}
		w.markSubmit(n)
		if n == 0 {
			continue
		}
		now = w.now()
		for range n {
			l.state[l.pend[l.pHead]].submitNs = now
			l.pHead = (l.pHead + 1) % len(l.pend)
		}
		l.pN -= n
		l.inflight += n
		l.eagainNs = 0
	}
	return now, false
}

// eagainLimit is how long the engine may refuse submissions with nothing
// in flight to reap before the worker gives up, as fio gives up after 30 s
// ("aio appears to be stalled").
const eagainLimit = int64(30 * time.Second)

// stalled waits a microsecond before the next try of a submission the
// kernel refused with nothing in flight, and says whether to give up:
// past eagainLimit (the worker fails) or when the worker is told to stop.
// The units not submitted go back.
func (l *ioLoop) stalled(w *worker) bool {
	t := w.now()
	switch {
	case l.eagainNs == 0:
		l.eagainNs = t
	case t-l.eagainNs > eagainLimit:
		w.fail(fmt.Errorf("%s: submissions refused for 30 s with nothing in flight: %w", w.spec.engine.name(), ioengine.ErrAgain))
		l.dropPending()
		return true
	}
	if t >= w.nextEvent && w.tick(t) {
		l.dropPending()
		return true
	}
	time.Sleep(time.Microsecond)
	return false
}

// dropPending takes back the units queued and never submitted: they are
// neither completed nor counted.
func (l *ioLoop) dropPending() {
	for ; l.pN > 0; l.pN-- {
		l.release(l.pend[l.pHead])
		l.pHead = (l.pHead + 1) % len(l.pend)
	}
	l.ioQueued = 0
}

// waitForCompletions is backend.c's wait_for_completions: reap at least
// iodepth_batch_complete_min (at least one when the queue is full or when
// polling), and with a full queue go on reaping until no more than
// iodepth_low are left. stop says the worker is to stop: its deadline or
// context ended a wait, an I/O failed, or the engine did.
func (l *ioLoop) waitForCompletions(w *worker, now int64, full bool) (int64, bool) {
	least := min(l.reapMin, l.taken())
	if (full && least == 0) || l.reapMin == 0 {
		least = 1
	}
	for {
		var ioOK, stop bool
		now, ioOK, stop = l.queuedComplete(w, now, least, false)
		if stop || !ioOK || l.failed {
			return now, true
		}
		if !full || l.taken() <= l.low {
			return now, false
		}
	}
}

// queuedComplete is io_u.c's io_u_queued_complete with ioengines.c's
// td_io_getevents: commit what is queued, then reap at least least (no
// more than are taken) and at most iodepth_batch_complete_max (no more
// than are taken, no fewer than least), counted as one reap however many
// waits it took. A reap of iodepth_batch_complete_min=0 asks the engine
// without waiting, again and again, as fio_ioring_getevents and
// fio_libaio_getevents do with actual_min 0. drain waits through the
// worker's stop: what is in flight must complete before the buffers go.
func (l *ioLoop) queuedComplete(w *worker, now int64, least int, drain bool) (_ int64, ioOK, stop bool) {
	cur := l.taken()
	least = min(least, cur)
	most := max(min(l.reapMax, cur), least)
	ioOK = true
	total := 0
	for total < least && !stop {
		if now, stop = l.commit(w, now); stop {
			break
		}
		wait := least - total
		if l.reapMin == 0 {
			wait = 0
		}
		n, t, good := l.reap(w, wait, most-total)
		now, total, ioOK = t, total+n, ioOK && good
		stop = l.failed || (total < least && !drain && now >= w.nextEvent && w.tick(now))
	}
	if total > 0 {
		w.markReap(total)
	}
	return now, ioOK, stop
}

// reap is one GetEvents: it waits for least units, takes up to most and
// counts each through finish, timed with one clock read. It returns how
// many it took, the time and whether every one succeeded.
func (l *ioLoop) reap(w *worker, least, most int) (int, int64, bool) {
	n, err := l.e.GetEvents(least, most)
	now := w.now()
	if err != nil {
		w.fail(err)
		l.failed = true
		return 0, now, false
	}
	ok := true
	for k := range n {
		u := l.e.Event(k)
		l.inflight--
		l.release(int32(u.Index))
		if !l.finish(w, u, now) {
			ok = false
		}
	}
	return n, now, ok
}

// fileSync is one fsync, or with data one fdatasync, of the worker's
// file, as a sync unit its engine completes in Queue (mmap's msync,
// posixaio's aio_fsync, null's nothing, fsync(2) for the others).
func (l *ioLoop) fileSync(data bool) error {
	u := &l.syncUnit
	u.Op, u.File, u.Off, u.Buf = ioengine.Sync, 0, 0, nil
	if data {
		u.Op = ioengine.Datasync
	}
	l.e.Queue(u)
	return u.Err
}
