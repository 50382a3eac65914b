// Package iolog is the record hook's contract: what blockbench's workers
// hand a record of their I/O beyond the result, for a package that knows
// a file format (fiojob.LogSpec writes fio's bw, iops, latency and
// histogram logs). blockbench calls these interfaces from its loop and
// knows nothing of what they write; the CLI or a job-file compiler sets
// a Spec as a workload's Log (dependency injection, as fiojob imports
// blockbench and never the other way round). blockbench names them
// IORecord, IOTotals, IORecorder, RecordSpec, RecordedWorkload,
// RecordedWorker and GroupRecorder.
package iolog

import (
	"io"
	"time"
)

// Record is one completed I/O as the worker counted it.
type Record struct {
	// Dir is 0 for a read, 1 for a write (a trim is counted as a write).
	Dir int
	// Bytes is what the I/O moved, Offset where it went.
	Bytes  int
	Offset int64
	// PrepNs, SubmitNs and DoneNs are when the I/O was set up, submitted
	// and completed, in ns since the group's workers started: DoneNs -
	// PrepNs is its latency, DoneNs - SubmitNs its completion latency,
	// SubmitNs - PrepNs its submission latency.
	PrepNs, SubmitNs, DoneNs int64
}

// Totals are a worker's counters since it began measuring, per direction
// (0 read, 1 write), as a window closes.
type Totals struct {
	IOs, Bytes [2]int64
	// SlatSumNs, ClatSumNs and LatSumNs are the sums of the submission,
	// completion and total latencies; for an engine without a submission
	// stage SlatSumNs is 0 and ClatSumNs is LatSumNs.
	SlatSumNs, ClatSumNs, LatSumNs [2]float64
}

// Recorder is one worker's record. The worker calls it from its own
// goroutine only; IO runs in the I/O loop and must neither allocate nor
// lock.
type Recorder interface {
	// Start begins the record at nowNs (the end of the ramp; again drops
	// what came before) and returns when Window is due next,
	// math.MaxInt64 for never.
	Start(nowNs int64) (nextWindowNs int64)
	// IO sees every I/O completed while measuring, when the recorder was
	// made with perIO (Group.Worker).
	IO(r Record)
	// Window is called at the worker's first tick at or after the time
	// Start or the last Window returned, with the worker's totals; it
	// returns when it is due next.
	Window(nowNs int64, t Totals) (nextWindowNs int64)
	// Finish closes the record at the worker's last completion.
	Finish(endNs int64, t Totals)
}

// Spec is a workload's record hook; nil records nothing and costs
// nothing in the I/O loop.
type Spec interface {
	// Validate refuses a spec that cannot be recorded, as a usage error.
	Validate() error
	// Writes says whether the workers will write files, through
	// blockbench's Plan.WriteLog, which must then be set.
	Writes() bool
	// Options echoes the spec into the result's job options.
	Options(set func(key, value string))
	// StartGroup begins recording one group. It is called on the spec of
	// the group's first recording workload, with every recording workload
	// of the group in order; an implementation takes its own kind of spec
	// (a plan mixes none) and refuses others.
	StartGroup(ws []Workload) (Group, error)
}

// Workload is one workload of a group as its record sees it.
type Workload struct {
	Spec    Spec
	Name    string
	NumJobs int
	// FirstWorker is the number of the workload's first worker, counted
	// from 1 through the whole plan (fio's job number, which its log
	// files carry).
	FirstWorker int
	Runtime     time.Duration
	// FioDirs are fio's direction (0 read, 1 write, 2 trim) of each
	// slot of Record.Dir: a trim is counted in the write slot, and
	// trimwrite's in the read slot (blockbench's trim.go).
	FioDirs [2]int
}

// Worker is one worker of a Workload.
type Worker struct {
	// Set is the workload's place in the StartGroup list, I the worker's
	// within it (from 0), Index the worker's number as errors and notes
	// name it (a clone's offset added).
	Set, I int
	Index  uint64
	// Split is true when the engine has a submission stage, so submission
	// latency is apart from completion latency.
	Split bool
}

// Group is one group's record.
type Group interface {
	// Worker makes the recorder of a worker, nil for none; perIO asks for
	// IO calls, one per completion (without it the worker makes none).
	Worker(w Worker) (rec Recorder, perIO bool)
	// Close releases what the record holds while the workers run; it is
	// called once they are done, and again when the group returns.
	Close()
	// Write writes what the workers recorded once they are done, through
	// write (blockbench's Plan.WriteLog, nil when the plan has none), and
	// returns notes per workload of the StartGroup list, such as a record
	// cut short.
	Write(write func(name string, fill func(io.Writer) error) error) (notes [][]string, err error)
}
