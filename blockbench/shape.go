package blockbench

import (
	"github.com/clydebench/clyde/internal/blocksum"
	"github.com/clydebench/clyde/internal/latency"
	"github.com/clydebench/clyde/result"
)

// The shape hook: what a job's result holds beyond clyde's own figures for
// the readers of a peer's format (fiojob.Shape fills fio's: its 500 ms
// sample statistics, the queue-depth and latency distributions, bw_agg and
// the job options in fio's syntax). blockbench measures and calls the hook;
// it knows nothing of what the hook fills. The CLI sets it as the Plan's (or
// Job's, iometer.Setup's) Shape, as fiojob imports blockbench and never the
// other way round; a nil Shape leaves those fields empty.

// Shaper fills a peer's fields of block results.
type Shaper interface {
	// Job fills one job's fields from what its workers measured; job holds
	// clyde's own figures already.
	Job(job *result.BlockJob, m *JobMeasure)
	// Group and Merge fill the fields that depend on a reporting group's
	// sum and on a job's merge over ranks (MergeRanks).
	blocksum.Shaper
}

// JobMeasure is one job as its workers measured it, for a Shaper.
type JobMeasure struct {
	// Workload is the job as given, with its region resolved (Offset,
	// Size); Depth and Engine are what ran (an engine without a queue
	// runs at depth 1), and Queues says the engine keeps several I/Os in
	// flight and counted its depth and reaps.
	Workload *Workload
	// Members are the workloads whose workers the job sums, in the plan's
	// order: Workload alone, or every one group_reporting joined to it.
	Members []*Workload
	Depth   int
	Engine  Engine
	Queues  bool
	Workers []WorkerMeasure
	// Clat holds every worker's completion latencies merged, per
	// direction (0 read, 1 write).
	Clat [2]*latency.Recorder
}

// WorkerMeasure is what one worker counted.
type WorkerMeasure struct {
	// IOs are the I/Os it completed per direction.
	IOs [2]int64
	// Marks are its cumulative counters every MarkEvery from the start of
	// its measured time, the first at zero counts.
	Marks []Mark
	// InFlight[n] counts the I/Os submitted with n in flight after their
	// submit call, Reaped[n] the reap calls that took n completions,
	// Submitted[n] the submit calls that took n I/Os; the last slot counts
	// anything above. Empty for an engine that does not queue; Submitted
	// also for one that submits an I/O per call.
	InFlight, Reaped, Submitted []int64
}

// Mark is a worker's cumulative counters at one instant, AtNs in ns of
// its clock.
type Mark = blocksum.Mark

// MarkEvery is the period of a worker's Marks, in ns: fio's bwavgtime and
// iopsavgtime.
const MarkEvery = markEvery

// measureOf is wl's workers' measurement; recs are their merged recorders.
func measureOf(wl *workload, workers []*worker, recs []*latency.Recorder) *JobMeasure {
	m := &JobMeasure{Workload: &wl.Workload, Depth: wl.depth, Engine: wl.engine.name(), Queues: wl.engine.queues(),
		Clat: [2]*latency.Recorder{recs[recClat+dirRead], recs[recClat+dirWrite]}}
	m.Workers = make([]WorkerMeasure, len(workers))
	for i, w := range workers {
		if i == 0 || w.spec != workers[i-1].spec {
			m.Members = append(m.Members, &w.spec.Workload)
		}
		wm := &m.Workers[i]
		wm.IOs = w.ios
		wm.Marks = publicMarks(w.marks)
		if m.Queues {
			wm.InFlight, wm.Reaped, wm.Submitted = w.inflight, w.reaped, w.submitted
		}
	}
	return m
}

// publicMarks are a worker's marks as Marks.
func publicMarks(marks []mark) []Mark {
	out := make([]Mark, len(marks))
	for k, mk := range marks {
		out[k] = Mark{AtNs: mk.atNs, IOs: mk.ios, Bytes: mk.bytes}
	}
	return out
}
