package blockbench

import "testing"

// TestCountHistKeepsFullResolution checks that a worker's counts keep every
// n up to the top apart, put what is above in the last slot, and that
// fio's buckets drawn from them once the workers are done are the buckets
// the I/O loop would have counted in directly.
func TestCountHistKeepsFullResolution(t *testing.T) {
	for _, top := range []int{1, 32, 64, 256} {
		h := newCountHist(top)
		var wantDepth, wantBatch [7]int64
		for n := -1; n <= 300; n++ {
			h.add(n)
			wantDepth[depthBucket(n)]++
			wantBatch[batchBucket(n)]++
		}
		limit := max(top, countTopFloor)
		for n := 1; n <= limit; n++ {
			if h[n] != 1 {
				t.Errorf("top %d: slot %d holds %d, want 1", top, n, h[n])
			}
		}
		if h[0] != 2 || h[len(h)-1] != int64(300-limit) {
			t.Errorf("top %d: slot 0 %d (want 2: 0 and -1), last %d (want %d)", top, h[0], h[len(h)-1], 300-limit)
		}
		if h.total() != 302 {
			t.Errorf("top %d: total %d, want 302", top, h.total())
		}
		if got := fioLevels(h, depthBucket); got != wantDepth {
			t.Errorf("top %d: depth levels %v, want %v", top, got, wantDepth)
		}
		if got := fioLevels(h, batchBucket); got != wantBatch {
			t.Errorf("top %d: batch levels %v, want %v", top, got, wantBatch)
		}
	}
}

// fioDepth and fioReaps are a worker's counts in fio's seven buckets, as
// the summary draws them, for the engines' tests.
func (w *worker) fioDepth() []int64 {
	b := fioLevels(w.inflight, depthBucket)
	return b[:]
}

func (w *worker) fioReaps() []int64 {
	b := fioLevels(w.reaped, batchBucket)
	return b[:]
}
