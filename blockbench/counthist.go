package blockbench

// countHist counts events by a small count n: slot n for n up to its top,
// the last slot for anything above. A worker keeps two, filled in the I/O
// loop of a queueing engine: the I/Os in flight after each submission and
// the completions each reap call took. They keep the counts at full
// resolution; a shape that wants coarser buckets (fio's io_u_map, in
// fiojob/shape.go) bins them once the workers are done (JobMeasure).
type countHist []int64

// countTopFloor is the least top a worker's histograms have, so that a
// count above a small depth (a reap of a synthetic worker) is still told
// apart up to 64, past every bucket edge a summary draws.
const countTopFloor = 64

// newCountHist makes a histogram with exact slots 0..top and one for more.
func newCountHist(top int) countHist { return make(countHist, max(top, countTopFloor)+2) }

// add counts one event of n; it neither allocates nor calls through an
// interface, as it runs once per I/O.
func (h countHist) add(n int) {
	h[min(max(n, 0), len(h)-1)]++
}

// addN counts k events of n at once (fio's io_u_mark_depth of a batch).
func (h countHist) addN(n int, k int64) {
	h[min(max(n, 0), len(h)-1)] += k
}

// total is the number of events counted.
func (h countHist) total() int64 {
	var s int64
	for _, c := range h {
		s += c
	}
	return s
}

// markDepth counts one submission that left inflight I/Os in flight.
func (w *worker) markDepth(inflight int) { w.inflight.add(inflight) }

// markSubmit counts one submit call (io_uring_enter, io_submit) that
// took n I/Os.
func (w *worker) markSubmit(n int) { w.submitted.add(n) }

// markReap counts one reap call that took n completions.
func (w *worker) markReap(n int) { w.reaped.add(n) }
