package blockbench

import (
	"math"

	"github.com/clydebench/clyde/internal/iolog"
)

// The record hook: what a workload's workers record of their I/O beyond the
// result, for a package outside blockbench that knows a file format
// (fiojob.LogSpec writes fio's bw, iops, latency and histogram logs). The
// hook's interfaces are internal/iolog; these are their names in
// blockbench's API, and how a group's workers are given their recorders.

// IORecord is one completed I/O as the worker counted it (iolog.Record).
type IORecord = iolog.Record

// IOTotals are a worker's counters since it began measuring, per direction
// (iolog.Totals).
type IOTotals = iolog.Totals

// IORecorder is one worker's record (iolog.Recorder); IO runs in the I/O
// loop and must neither allocate nor lock.
type IORecorder = iolog.Recorder

// RecordSpec is a workload's record hook (iolog.Spec); nil records nothing
// and costs nothing in the I/O loop.
type RecordSpec = iolog.Spec

// RecordedWorkload is one workload of a group as its record sees it
// (iolog.Workload).
type RecordedWorkload = iolog.Workload

// RecordedWorker is one worker of a RecordedWorkload (iolog.Worker).
type RecordedWorker = iolog.Worker

// GroupRecorder is one group's record (iolog.Group).
type GroupRecorder = iolog.Group

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
