package latency

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

func TestFioPlatBuckets(t *testing.T) {
	// Percentiles fio 3.33 printed (block.md 1.4 and the reference JSON):
	// every one is a bucket midpoint.
	for _, v := range []int64{764, 940, 980, 1032, 1128, 1576, 1912, 9920, 41728, 65280, 59136, 798720, 6062080} {
		if got := FioPlatValue(FioPlatIndex(v)); got != v {
			t.Errorf("fio printed %d, the midpoint of its bucket is %d", v, got)
		}
	}
	cases := []struct {
		name string
		ns   int64
		idx  int
	}{
		{"zero", 0, 0},
		{"exact below 128", 127, 127},
		{"first shared bucket", 128, 128},
		{"1128", 1128, 326},
		{"past 2^34 lands in the last bucket", 1 << 40, FioPlatNr - 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := FioPlatIndex(tc.ns); got != tc.idx {
				t.Errorf("FioPlatIndex(%d) = %d, want %d", tc.ns, got, tc.idx)
			}
		})
	}
	if FioPlatNr != 1856 {
		t.Errorf("%d buckets, fio has 1856", FioPlatNr)
	}
	// Buckets are contiguous and each midpoint lies in its own bucket.
	for idx := range FioPlatNr - 1 {
		if mid := FioPlatValue(idx); FioPlatIndex(mid) != idx {
			t.Fatalf("midpoint %d of bucket %d falls in bucket %d", mid, idx, FioPlatIndex(mid))
		}
		if FioPlatValue(idx+1) <= FioPlatValue(idx) {
			t.Fatalf("bucket %d's midpoint is not above bucket %d's", idx+1, idx)
		}
	}
}

func randomRecorder(seed uint64, n int) (*Recorder, []int64) {
	rng := rand.New(rand.NewPCG(seed, 1))
	r := New()
	vals := make([]int64, n)
	for i := range vals {
		vals[i] = int64(50 + rng.ExpFloat64()*20_000)
		if i%500 == 0 {
			vals[i] *= 300 // a tail into milliseconds
		}
		r.Record(time.Duration(vals[i]))
	}
	slices.Sort(vals)
	return r, vals
}

func TestFioBinsAndCounts(t *testing.T) {
	r, vals := randomRecorder(3, 20_000)
	want := map[int]int64{}
	for _, v := range vals {
		want[FioPlatIndex(v)]++
	}
	got := r.FioBins()
	if len(got) != len(want) {
		t.Fatalf("%d bins, want %d", len(got), len(want))
	}
	for i, b := range got {
		if want[b.Index] != b.Count {
			t.Errorf("bin %d (%d ns): %d, want %d", b.Index, FioPlatValue(b.Index), b.Count, want[b.Index])
		}
		if i > 0 && got[i-1].Index >= b.Index {
			t.Errorf("bins out of order at %d", i)
		}
	}
	edges := []int64{100, 1000, 10_000, 100_000, 1_000_000}
	counts := r.CountsBelow(edges)
	for i := range counts {
		lo, hi := int64(-1), int64(1<<62)
		if i > 0 {
			lo = edges[i-1]
		}
		if i < len(edges) {
			hi = edges[i]
		}
		var n int64
		for _, v := range vals {
			if v >= lo && v < hi {
				n++
			}
		}
		// A histogram bucket straddling an edge is counted whole: 0.1%.
		if d := counts[i] - n; d > n/500+2 || -d > n/500+2 {
			t.Errorf("range %d: %d, want %d", i, counts[i], n)
		}
	}
}

func TestFioPercentilesNs(t *testing.T) {
	r, vals := randomRecorder(9, 5533)
	ps := []float64{1, 50, 99, 99.9, 99.99, 100}
	got := r.FioPercentilesNs(ps, nil)
	for i, p := range ps {
		// fio's rule: the smallest value with at least p% at or below.
		k := 0
		for float64(k+1) < p/100*float64(len(vals)) {
			k++
		}
		want := vals[k]
		if d := got[i] - want; d < 0 || float64(d) > float64(want)/1000+1 {
			t.Errorf("p%g = %d, want %d (within the histogram's 0.1%%, at or above)", p, got[i], want)
		}
	}
	if got := New().FioPercentilesNs(ps, nil); len(got) != len(ps) || got[0] != 0 {
		t.Errorf("empty recorder: %v", got)
	}
}
