package blockbench

// This file is fio 3.33's I/O loop with its batching options, which
// io_uring (named as fio's engine) and libaio run when a workload sets
// SubmitBatch, LowWater, ReapMin or ReapPoll. Each rule cites the fio
// function it comes from. Without those knobs the engines run their own
// loop, which is this one with fio's defaults (one I/O per submit call, a
// reap of at least one once the queue is full).

// batchQueue is what the loop drives in an engine: fio's ioengine
// operations ->queue, ->commit and ->getevents, and td->cur_depth.
type batchQueue interface {
	// queueOne draws the next I/O into a free slot and queues it
	// without submitting it (fio_ioring_queue, fio_libaio_queue).
	queueOne(w *worker, now int64)
	// commitQueued submits every queued I/O, counting each submit call
	// in w.submitted (fio_ioring_commit, fio_libaio_commit); false means
	// the engine failed and the worker's error says how. An I/O the
	// kernel cannot take yet (EAGAIN) stays queued for the next commit.
	commitQueued(w *worker) bool
	// reapEvents waits until least I/Os have completed (not at all when
	// least is 0; at most the engine's wait timeout), takes up to most
	// and completes them, timed with now. It returns how many it took,
	// whether the engine works and whether every I/O taken succeeded.
	reapEvents(w *worker, least, most int) (n int, now int64, engineOK, ioOK bool)
	// taken is fio's cur_depth: the slots held by I/Os queued, submitted
	// or completed and not yet reaped.
	taken() int
}

// batchLoop is one worker's batching state: the options after fio's
// fixups, and fio's td->io_u_queued.
type batchLoop struct {
	depth   int
	batch   int // iodepth_batch
	low     int // iodepth_low
	reapMin int // iodepth_batch_complete_min (0: poll)
	reapMax int // iodepth_batch_complete_max
	// polling is backend.c's io_in_polling: complete_min and complete_max
	// both 0, so the loop reaps after every submission.
	polling bool
	// queued is fio's td->io_u_queued: I/Os queued since the last
	// td_io_commit. The commit td_io_getevents makes itself does not
	// clear it (ioengines.c), so the next td_io_commit comes sooner and
	// counts, in the depth distribution, I/Os already submitted.
	queued int
}

// batched says whether the workload asks for fio's batching, which the
// engines run through batchLoop: a knob that, after fio's fixups, does
// something else than fio's defaults.
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

// newBatchLoop applies fio's fixups (init.c, fixup_options) to the
// workload's knobs; nil when the workload does not batch.
func newBatchLoop(w *workload) *batchLoop {
	if !w.batched() {
		return nil
	}
	b := &batchLoop{depth: w.depth, batch: w.SubmitBatch, low: w.LowWater, reapMin: max(w.ReapMin, 1), reapMax: w.IODepthBatchCompleteMax}
	// "The low water mark cannot be bigger than the iodepth", and 0 is
	// iodepth.
	if b.low > b.depth || b.low == 0 {
		b.low = b.depth
	}
	// "If batch number isn't set, default to the same as iodepth": fio's
	// own 0 is iodepth (the caller maps it); here 0 is fio's default, 1.
	b.batch = min(max(b.batch, 1), b.depth)
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

// run is backend.c's do_io for one worker: queue an I/O; commit once
// batch are queued (td_io_queue); when the queue is full, or always when
// polling, reap (wait_for_completions); at the end commit what is left
// and wait for everything (do_io's last io_u_queued_complete). Nothing in
// it allocates.
func (b *batchLoop) run(w *worker, q batchQueue) {
	stopping := false
	now := w.now()
	if now >= w.nextEvent {
		stopping = w.tick(now)
	}
	for !stopping && w.remaining > 0 {
		q.queueOne(w, now)
		b.queued++
		if b.queued >= b.batch {
			// td_io_commit: io_u_mark_depth counts the batch at the
			// depth it brought the queue to.
			w.inflight.addN(q.taken(), int64(b.queued))
			b.queued = 0
			if !q.commitQueued(w) {
				return
			}
		}
		now = w.now()
		if full := q.taken() >= b.depth; full || b.polling {
			var ok, ioOK bool
			now, ok, ioOK, stopping = b.waitForCompletions(w, q, full)
			if !ok {
				return
			}
			stopping = stopping || !ioOK
		}
		if !stopping && now >= w.nextEvent {
			stopping = w.tick(now)
		}
	}
	for q.taken() > 0 {
		var ok bool
		if now, ok, _, _ = b.queuedComplete(w, q, q.taken(), true); !ok {
			return
		}
	}
	if !stopping {
		w.tick(now)
	}
}

// waitForCompletions is backend.c's wait_for_completions: reap at least
// iodepth_batch_complete_min (at least one when the queue is full or when
// polling), and with a full queue go on reaping until no more than
// iodepth_low are left. stop says the worker's deadline or context ended
// a wait.
func (b *batchLoop) waitForCompletions(w *worker, q batchQueue, full bool) (now int64, engineOK, ioOK, stop bool) {
	least := min(b.reapMin, q.taken())
	if (full && least == 0) || b.reapMin == 0 {
		least = 1
	}
	for {
		now, engineOK, ioOK, stop = b.queuedComplete(w, q, least, false)
		if !engineOK || !ioOK || stop || !full || q.taken() <= b.low {
			return
		}
	}
}

// queuedComplete is io_u.c's io_u_queued_complete with ioengines.c's
// td_io_getevents: commit what is queued, then reap at least least (no
// more than are taken) and at most iodepth_batch_complete_max (no more
// than are taken, no fewer than least), counted as one reap however many
// waits it took. A reap of iodepth_batch_complete_min=0 asks the kernel
// without waiting, again and again, as fio_ioring_getevents and
// fio_libaio_getevents do with actual_min 0. drain waits through the
// worker's stop: what is in flight must complete before the buffers go.
func (b *batchLoop) queuedComplete(w *worker, q batchQueue, least int, drain bool) (now int64, engineOK, ioOK, stop bool) {
	cur := q.taken()
	least = min(least, cur)
	most := max(min(b.reapMax, cur), least)
	ioOK = true
	total := 0
	for total < least {
		if !q.commitQueued(w) {
			return w.now(), false, ioOK, stop
		}
		wait := least - total
		if b.reapMin == 0 {
			wait = 0
		}
		n, t, ok, good := q.reapEvents(w, wait, most-total)
		now, total, ioOK = t, total+n, ioOK && good
		if !ok {
			return now, false, ioOK, stop
		}
		if total < least && !drain && now >= w.nextEvent && w.tick(now) {
			stop = true
			break
		}
	}
	if total > 0 {
		w.markReap(total)
	}
	return now, true, ioOK, stop
}
