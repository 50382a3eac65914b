package blockbench

import (
	"io"
	"math"
	"time"
)

// The record hook: what a workload's workers record of their I/O beyond the
// result, for a package outside blockbench that knows a file format
// (fiojob.LogSpec writes fio's bw, iops, latency and histogram logs).
// blockbench calls the hook and knows nothing of what it writes; the CLI or
// a job-file compiler sets it as the Workload's (or Job's) Log (dependency
// injection, as fiojob imports blockbench and never the other way round).

// IORecord is one completed I/O as the worker counted it.
type IORecord struct {
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

// IOTotals are a worker's counters since it began measuring, per direction
// (0 read, 1 write), as a window closes.
type IOTotals struct {
	IOs, Bytes [2]int64
	// SlatSumNs, ClatSumNs and LatSumNs are the sums of the submission,
	// completion and total latencies; for an engine without a submission
	// stage SlatSumNs is 0 and ClatSumNs is LatSumNs.
	SlatSumNs, ClatSumNs, LatSumNs [2]float64
}

// IORecorder is one worker's record. The worker calls it from its own
// goroutine only; IO runs in the I/O loop and must neither allocate nor
// lock.
type IORecorder interface {
	// Start begins the record at nowNs (the end of the ramp; again drops
	// what came before) and returns when Window is due next,
	// math.MaxInt64 for never.
	Start(nowNs int64) (nextWindowNs int64)
	// IO sees every I/O completed while measuring, when the recorder was
	// made with perIO (GroupRecorder.Worker).
	IO(r IORecord)
	// Window is called at the worker's first tick at or after the time
	// Start or the last Window returned, with the worker's totals; it
	// returns when it is due next.
	Window(nowNs int64, t IOTotals) (nextWindowNs int64)
	// Finish closes the record at the worker's last completion.
	Finish(endNs int64, t IOTotals)
}

// RecordSpec is a workload's record hook; nil records nothing and costs
// nothing in the I/O loop.
type RecordSpec interface {
	// Validate refuses a spec that cannot be recorded, as a usage error.
	Validate() error
	// Writes says whether the workers will write files, through
	// Plan.WriteLog, which must then be set.
	Writes() bool
	// Options echoes the spec into the result's job options.
	Options(set func(key, value string))
	// StartGroup begins recording one group. It is called on the spec of
	// the group's first recording workload, with every recording workload
	// of the group in order; an implementation takes its own kind of spec
	// (a plan mixes none) and refuses others.
	StartGroup(ws []RecordedWorkload) (GroupRecorder, error)
}

// RecordedWorkload is one workload of a group as its record sees it.
type RecordedWorkload struct {
	Spec    RecordSpec
	Name    string
	NumJobs int
	// FirstWorker is the number of the workload's first worker, counted
	// from 1 through the whole plan (fio's job number, which its log
	// files carry).
	FirstWorker int
	Runtime     time.Duration
	// FioDirs are fio's direction (0 read, 1 write, 2 trim) of each
	// slot of IORecord.Dir: a trim is counted in the write slot, and
	// trimwrite's in the read slot (trim.go).
	FioDirs [2]int
}

// fioDirs is FioDirs for mode rw.
func fioDirs(rw RW) [2]int {
	switch {
	case rw.Trims():
		return [2]int{0, 2}
	case rw.TrimsThenWrites():
		return [2]int{2, 1}
	}
	return [2]int{0, 1}
}

// RecordedWorker is one worker of a RecordedWorkload.
type RecordedWorker struct {
	// Set is the workload's place in the StartGroup list, I the worker's
	// within it (from 0), Index the worker's number as errors and notes
	// name it (a clone's offset added).
	Set, I int
	Index  uint64
	// Split is true when the engine has a submission stage, so submission
	// latency is apart from completion latency.
	Split bool
}

// GroupRecorder is one group's record.
type GroupRecorder interface {
	// Worker makes the recorder of a worker, nil for none; perIO asks for
	// IO calls, one per completion (without it the worker makes none).
	Worker(w RecordedWorker) (rec IORecorder, perIO bool)
	// Close releases what the record holds while the workers run; it is
	// called once they are done, and again when the group returns.
	Close()
	// Write writes what the workers recorded once they are done, through
	// write (Plan.WriteLog, nil when the plan has none), and returns notes
	// per workload of the StartGroup list, such as a record cut short.
	Write(write func(name string, fill func(io.Writer) error) error) (notes [][]string, err error)
}

// groupRecord is a group's record as runGroup drives it: the recorder and
// each workload's place in its list (-1: not recorded).
type groupRecord struct {
	g   GroupRecorder
	set []int
}

// startRecord begins the group's record; nil when no workload records.
func startRecord(ws []*workload) (*groupRecord, error) {
	var list []RecordedWorkload
	r := &groupRecord{set: make([]int, len(ws))}
	for i, wl := range ws {
		r.set[i] = -1
		if wl.Log != nil {
			r.set[i] = len(list)
			list = append(list, RecordedWorkload{Spec: wl.Log, Name: wl.Name, NumJobs: wl.NumJobs, FirstWorker: wl.firstWorker, Runtime: wl.Runtime,
				FioDirs: fioDirs(wl.RW)})
		}
	}
	if len(list) == 0 {
		return nil, nil
	}
	g, err := list[0].Spec.StartGroup(list)
	if err != nil {
		return nil, err
	}
	r.g = g
	return r, nil
}

// attach gives worker i of ws[set] its recorder, if its workload records.
func (r *groupRecord) attach(set, i int, w *worker) {
	if r == nil || r.set[set] < 0 {
		return
	}
	if rec, perIO := r.g.Worker(RecordedWorker{Set: r.set[set], I: i, Index: w.index, Split: w.split}); rec != nil {
		w.record(rec, perIO)
	}
}

func (r *groupRecord) close() {
	if r != nil {
		r.g.Close()
	}
}

// write writes the record once the workers are done; the notes are per
// workload of the group.
func (r *groupRecord) write(ws []*workload) ([][]string, error) {
	notes := make([][]string, len(ws))
	if r == nil {
		return notes, nil
	}
	r.g.Close()
	got, err := r.g.Write(ws[0].writeLog)
	for set, k := range r.set {
		if k >= 0 && k < len(got) {
			notes[set] = got[k]
		}
	}
	return notes, err
}

// record attaches a recorder to the worker.
func (w *worker) record(r IORecorder, perIO bool) {
	w.rec, w.recIO, w.recNext = r, perIO, math.MaxInt64
	if w.measuring {
		// A worker without a ramp measures from its creation.
		w.recNext = r.Start(w.startNs)
		w.nextEvent = w.nextEventAfter(w.startNs)
	}
}

// totals are the worker's counters for its recorder's windows.
func (w *worker) totals() IOTotals {
	t := IOTotals{IOs: w.ios, Bytes: w.bytes}
	for d := range 2 {
		if r := w.recs[recSlat+d]; r != nil {
			t.SlatSumNs[d] = r.SumNs()
		}
		if r := w.recs[recClat+d]; r != nil {
			t.ClatSumNs[d] = r.SumNs()
		}
		if r := w.recs[recLat+d]; r != nil {
			t.LatSumNs[d] = r.SumNs()
		}
	}
	return t
}
