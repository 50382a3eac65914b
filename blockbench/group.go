package blockbench

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"sync/atomic"
	"time"

	"github.com/clydebench/clyde/internal/blocksum"
	"github.com/clydebench/clyde/internal/cpuclock"
	"github.com/clydebench/clyde/internal/lanes"
	"github.com/clydebench/clyde/internal/latency"
	"github.com/clydebench/clyde/internal/liveline"
	"github.com/clydebench/clyde/internal/osio"
	"github.com/clydebench/clyde/result"
)

// runGroup runs the workloads of one group at the same time: every worker of
// every workload is a lane of one measurement (internal/lanes), started off
// one channel and measured over the same window; each workload is then
// summarised on its own. stop, when set, ends every worker at its next tick;
// lv, when set, is the progress line the workers publish their counters to.
//
// ready, when set, is called once every worker is prepared, before the
// start (a many-rank job's common start), with a reader of the group's
// I/Os so far; its error starts no worker.
//
// end says what exitall left of the group (jobflow.go).
func runGroup(ctx context.Context, ws []*workload, stop *atomic.Bool, lv *live, ready func(done func() int64) error) (_ []result.BlockJob, end groupEnd, _ error) {
	entry, entries := reportEntries(ws)
	rec, err := startRecord(ws)
	if err != nil {
		return nil, end, err
	}
	defer rec.close()
	workers, ls, ramp := groupLanes(ws, entry, stop, rec, lv, ready != nil)
	gate := newJobGate(ws, workers) // jobflow.go
	defer func() {
		for _, wk := range workers {
			for _, w := range wk {
				w.close()
			}
		}
	}()
	o := lanes.Options{Ramp: ramp}
	if ready != nil {
		o.Ready = func() error { return ready(func() int64 { return groupIOs(workers) }) }
	}
	out, err := lanes.Run(ctx, ls, o)
	if err != nil {
		return nil, end, err
	}
	end = gate.end(entry, entries)
	var errs []error
	notes, lerr := rec.write(ws)
	if lerr != nil {
		errs = append(errs, lerr)
	}
	jobs := groupJobs(ctx, ws, workers, entry, entries, out, notes)
	for set, wl := range ws {
		for i, w := range workers[set] {
			if w.err != nil {
				errs = append(errs, fmt.Errorf("job %s worker %d: %w", wl.Name, i, w.err))
				if mr := (*MinRateError)(nil); errors.As(w.err, &mr) {
					jobs[entry[set]].Error = errEIO // fio's td_verror(td, EIO, "check_min_rate")
				}
			}
		}
	}
	return jobs, end, errors.Join(errs...)
}

// groupLanes makes every worker of every workload (workers[set] are ws[set]'s)
// and its lane, and says the longest ramp; each worker registers with lv
// (nil: no progress line). counted gives each worker a live count of its
// I/Os when the live line does not (groupIOs reads it).
func groupLanes(ws []*workload, entry []int, stop *atomic.Bool, rec *groupRecord, lv *live, counted bool) ([][]*worker, []lanes.Lane, time.Duration) {
	var ls []lanes.Lane
	workers := make([][]*worker, len(ws))
	var ramp time.Duration
	for set, wl := range ws {
		ramp = max(ramp, wl.RampTime)
		for i := range wl.NumJobs {
			w := newWorker(wl, i)
			w.stop = stop
			rec.attach(set, i, w)
			lv.add(w)
			if counted && w.snap == nil {
				w.snap = new(liveline.Counts) // the group's count for ready's reader
			}
			workers[set] = append(workers[set], w)
			ls = append(ls, workerLane(w, entry[set]))
		}
	}
	return workers, ls, ramp
}

// workerLane is one worker as a lane of the group's measurement, its
// latencies in the set of its report entry.
func workerLane(w *worker, set int) lanes.Lane {
	return lanes.Lane{
		Prepare: func() error { return w.prepare() },
		Work: func(lctx context.Context, start time.Time) error {
			defer lockThread()()
			defer w.endWork()
			unpin, err := w.pin() // affinity.go
			if err != nil {
				return err
			}
			defer unpin()
			w.ctx, w.base = lctx, start
			// fio's startdelay (minrate.go) and wait_for (jobflow.go)
			if !w.waitStart(lctx, start) || !w.waitFor(start) {
				return w.err
			}
			w.started.Store(true)
			if w.measuring {
				w.startThreadCPU() // no ramp
			}
			w.loop.run(w)
			w.endFsync()
			w.verifyPass()
			w.finish()
			w.syncOnClose()
			w.stopThreadCPU()
			return w.err
		},
		Lat: w.latencies(),
		Set: set,
	}
}

// groupIOs is the group's I/Os so far, a many-rank job's progress.
func groupIOs(workers [][]*worker) int64 {
	var n int64
	for _, wk := range workers {
		for _, w := range wk {
			n += w.snap.IOs()
		}
	}
	return n
}

// groupJobs summarises each report entry of the group from the workers of
// the workloads in it, with their record notes.
func groupJobs(ctx context.Context, ws []*workload, workers [][]*worker, entry []int, entries int, out lanes.Outcome, notes [][]string) []result.BlockJob {
	jobs := make([]result.BlockJob, entries)
	for e := range jobs {
		var first *workload
		var ews []*worker
		var enotes []string
		for set, wl := range ws {
			if entry[set] == e {
				first = cmp.Or(first, wl)
				ews = append(ews, workers[set]...)
				enotes = append(enotes, notes[set]...)
			}
		}
		jobs[e] = summarize(first, ews, out.Lat[e], out.Sample)
		jobs[e].Interrupted = jobs[e].Interrupted && ctx.Err() != nil
		jobs[e].Notes = append(jobs[e].Notes, enotes...)
		if len(ews) != first.NumJobs {
			jobs[e].Config.NumJobs = len(ews)
		}
	}
	return jobs
}

// reportEntries says which entry of the group's result each workload goes
// into, as fio's stat.c decides it: a workload with GroupReporting joins
// the entry of the workload before it when both are in one reporting group;
// every other workload is an entry of its own.
func reportEntries(ws []*workload) (entry []int, n int) {
	entry = make([]int, len(ws))
	for i, wl := range ws {
		if i > 0 && wl.GroupReporting && ws[i-1].groupID == wl.groupID {
			entry[i] = entry[i-1]
			continue
		}
		entry[i] = n
		n++
	}
	return entry, n
}

// prepare opens the worker's descriptor and readies its engine, on the
// worker's own goroutine.
func (w *worker) prepare() error {
	if w.spec.Diskless() {
		return w.prepareEngine() // nothing to open
	}
	h, err := w.spec.target.OpenWorker(w.spec.RW.Writes(), w.spec.Direct, engineOpenFlags(w.spec.engine))
	if err != nil {
		return fmt.Errorf("open %s for worker %d: %w", w.spec.target.Resolved, w.index, err)
	}
	w.h = h
	if w.spec.FadviseHint && !w.spec.Direct {
		if err := osio.AdviseAccess(h, w.spec.RW.Random()); err != nil {
			return fmt.Errorf("fadvise_hint for worker %d: %w", w.index, err)
		}
	}
	if w.spec.vol != nil {
		if err := w.openVolume(h); err != nil {
			return err
		}
	}
	return w.prepareEngine()
}

// prepareEngine opens the worker's engine and readies its loop.
func (w *worker) prepareEngine() error {
	l, err := w.spec.engine.prepare(w)
	if err != nil {
		return err
	}
	w.loop = l
	return nil
}

// summarize merges the workers' figures into one job, as fio's
// group_reporting does for a job's clones: counts summed, runtime the
// longest. recs are the workers' recorders merged (lat, clat, slat per
// direction); cpu is the whole process over the group's window (see
// setJobCPU for what the job's CPU figures are). The workload's shape then
// adds its fields.
func summarize(wl *workload, workers []*worker, recs []*latency.Recorder, cpu cpuclock.Sample) result.BlockJob {
	job := measured(wl, workers, recs, cpu)
	if wl.shape != nil {
		wl.shape.Job(&job, measureOf(wl, workers, recs))
	}
	return job
}

// measured is summarize's job before the shape adds its fields.
func measured(wl *workload, workers []*worker, recs []*latency.Recorder, cpu cpuclock.Sample) result.BlockJob {
	job := result.BlockJob{JobName: wl.Name, Desc: wl.Desc, GroupID: wl.groupID, Config: wl.config()}

	startNs, endNs := int64(math.MaxInt64), int64(0)
	var ios, bytes, short [2]int64
	for _, w := range workers {
		job.Interrupted = job.Interrupted || w.stoppedEarly
		job.Syncs += w.syncs
		if len(w.marks) == 0 {
			continue // never left the ramp
		}
		startNs, endNs = min(startNs, w.startNs), max(endNs, w.endNs)
		for d := range 2 {
			ios[d] += w.ios[d]
			bytes[d] += w.bytes[d]
			short[d] += w.short[d]
		}
	}
	if endNs == 0 {
		return job
	}
	elapsed := endNs - startNs
	job.ElapsedNs = elapsed
	job.JobRuntime = elapsed / 1e6
	job.Series = mergeSeries(workers, startNs)
	job.Sync = wl.syncDir(recs[recSync], job.Syncs)
	for d, out := range [2]*result.BlockDir{&job.Read, &job.Write} {
		if ios[d] == 0 {
			continue
		}
		blocksum.Dir(out, ios[d], bytes[d], short[d], elapsed)
		wl.latencyObjects(out, recs, d)
	}
	setVerifyRuntime(&job, workers)
	reportTrims(&job, wl)
	wl.setMixed(&job, recs) // unified.go
	setJobCPU(&job, workers, cpu)
	job.Trend = blocksum.Trend(job.Series)
	summarizePattern(wl, &job, workers)
	return job
}

// mergeSeries is the workers' per-second series from startNs
// (blocksum.Series): the watch's live series (watch.go) is the same.
func mergeSeries(workers []*worker, startNs int64) []result.BlockSample {
	marks := make([][]blocksum.Mark, len(workers))
	for i, w := range workers {
		marks[i] = publicMarks(w.marks)
	}
	return blocksum.Series(marks, startNs, marksPerSample)
}

func (w *workload) config() result.BlockJobConfig {
	c := result.BlockJobConfig{
		RW: string(w.RW), RWMixRead: w.RWMixRead, BSBytes: w.BS, SizeBytes: w.Size, OffsetBytes: w.Offset,
		IODepth: w.depth, NumJobs: w.NumJobs, IOEngine: string(w.engine.name()), Direct: w.Direct,
		RuntimeNs: int64(w.Runtime), RampTimeNs: int64(w.RampTime), TimeBased: w.TimeBased,
		Buffer: w.Buffer.String(), Fsync: w.Fsync, Seed: w.Seed, EndFsync: w.EndFsync, Invalidate: w.Invalidate, FadviseHint: w.FadviseHint,
	}
	if w.depth != w.IODepth {
		c.IODepthRequested = w.IODepth
	}
	if w.Sizes != nil {
		c.BlockSizes = w.Sizes.pure().Config()
	}
	return c
}

// syncDir is fio's sync direction: fsync calls and their latency, with
// percentiles as fio gives them (clat or lat percentiles on).
// fsyncs is the count of fsync calls alone: fdatasync calls are timed
// with them but not counted in total_ios (syncopts.go).
func (w *workload) syncDir(rec *latency.Recorder, fsyncs int64) result.BlockSyncDir {
	var ps []float64
	if !w.Report.NoClatPercentiles || w.Report.LatPercentiles {
		ps = w.percentiles()
	}
	return result.BlockSyncDir{TotalIOs: fsyncs, Lat: result.LatNsFrom(rec, ps)}
}
