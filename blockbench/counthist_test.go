package blockbench

import (
	"math"
	"testing"
)

// TestCountHistKeepsFullResolution checks that a worker's counts keep every
// n up to the top apart and put what is above in the last slot (fiojob's
// TestFioLevels bins such counts into fio's buckets).
func TestCountHistKeepsFullResolution(t *testing.T) {
	for _, top := range []int{1, 32, 64, 256} {
		h := newCountHist(top)
		for n := -1; n <= 300; n++ {
			h.add(n)
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
	}
}

// fio's io_u_map buckets as ranges of n, for the engines' tests to state
// what they expect in fio's terms (fiojob draws the buckets in results):
// I/Os in flight 1, 2-3, 4-7 ... 64 and more; I/Os per call 0, 1-4, 5-8 ...
// more than 64.
var (
	fioDepthRanges = [7][2]int{{0, 1}, {2, 3}, {4, 7}, {8, 15}, {16, 31}, {32, 63}, {64, math.MaxInt}}
	fioBatchRanges = [7][2]int{{0, 0}, {1, 4}, {5, 8}, {9, 16}, {17, 32}, {33, 64}, {65, math.MaxInt}}
)

func binned(h countHist, ranges [7][2]int) []int64 {
	b := make([]int64, 7)
	for n, c := range h {
		for i, r := range ranges {
			if n >= r[0] && n <= r[1] {
				b[i] += c
			}
		}
	}
	return b
}

// fioDepth and fioReaps are a worker's counts in fio's seven buckets.
func (w *worker) fioDepth() []int64 { return binned(w.inflight, fioDepthRanges) }

func (w *worker) fioReaps() []int64 { return binned(w.reaped, fioBatchRanges) }
