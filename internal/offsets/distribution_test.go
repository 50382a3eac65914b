package offsets

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// testDrawRand is the generator blockbench gives the draw of a job's
// first worker with the default seed (its newRand(seed^0xd157, 1)).
func testDrawRand() *rand.PCG { return testRand(testSeed^0xd157, 1) }

// harmonic is the generalized harmonic number H(k, theta): the sum of
// 1/i^theta for i = 1..k, zipf's normalizer.
func harmonic(k int, theta float64) float64 {
	var h float64
	for i := 1; i <= k; i++ {
		h += math.Pow(float64(i), -theta)
	}
	return h
}

// TestZipfRanks: fio's zipf_next draws rank i (from 1) with probability
// 1/i^theta / H(n, theta), through Gray et al.'s approximate inverse: the
// share of the hottest 1% and 10% of ranks matches the analytic zipf
// within 0.02 (the approximation's error at these sizes is below 0.01;
// 200,000 draws vary a share by about 0.001).
func TestZipfRanks(t *testing.T) {
	const n, draws = 100_000, 200_000
	for _, theta := range []float64{0.8, 1.2, 2} {
		w := NewDraw(Distribution{Kind: Zipf, Param: theta}, n, 4096, testDrawRand())
		counts := make([]int, n)
		for range draws {
			r := w.zipfRank()
			if r >= n {
				t.Fatalf("theta %g: rank %d of %d", theta, r, n)
			}
			counts[r]++
		}
		hn := harmonic(n, theta)
		for _, top := range []int{n / 100, n / 10} {
			got := 0
			for _, c := range counts[:top] {
				got += c
			}
			share := float64(got) / draws
			want := harmonic(top, theta) / hn
			if math.Abs(share-want) > 0.02 {
				t.Errorf("zipf:%g: the hottest %d of %d ranks took %.3f of the I/Os; zipf's share is %.3f", theta, top, n, share, want)
			}
		}
	}
}

// TestParetoRanks: fio's pareto_next is (n-1)*u^(log h/log(1-h)), so the
// hottest fraction h of the ranks takes 1-h of the I/Os: pareto:0.2 is
// the 80/20 rule, pareto:0.1 the 90/10 one.
func TestParetoRanks(t *testing.T) {
	const n, draws = 50_000, 200_000
	for _, h := range []float64{0.1, 0.2, 0.3} {
		w := NewDraw(Distribution{Kind: Pareto, Param: h}, n, 4096, testDrawRand())
		hot := 0
		for range draws {
			if w.paretoRank() < uint64(h*n) {
				hot++
			}
		}
		if share := float64(hot) / draws; math.Abs(share-(1-h)) > 0.01 {
			t.Errorf("pareto:%g: the hottest %g of the ranks took %.3f of the I/Os, want %.3f", h, h, share, 1-h)
		}
	}
}

// TestNormalSpread: fio's gauss_next is the mean of 12 uniform draws over
// 0..n (deviation n/12 about n/2) plus a uniform jitter as wide as dev% of
// n (variance width^2/12): the draws' mean and deviation match within 2%.
func TestNormalSpread(t *testing.T) {
	const n, draws = 100_000, 100_000
	for _, dev := range []float64{0, 10, 40} {
		w := NewDraw(Distribution{Kind: Normal, Param: dev}, n, 4096, testDrawRand())
		var sum, sq float64
		for range draws {
			v := float64(w.gaussValue())
			if v >= n {
				t.Fatalf("normal:%g: %v outside the region's %d blocks", dev, v, n)
			}
			sum += v
			sq += v * v
		}
		mean := sum / draws
		sd := math.Sqrt(sq/draws - mean*mean)
		width := math.Ceil(n * dev / 100)
		wantSD := math.Sqrt(float64(n)*float64(n)/144 + width*width/12)
		if math.Abs(mean-n/2) > 0.02*n/2 || math.Abs(sd-wantSD) > 0.02*wantSD {
			t.Errorf("normal:%g: mean %.0f deviation %.0f; want %d and %.0f", dev, mean, sd, n/2, wantSD)
		}
	}
}

// TestScatter: fio hashes a rank with __hash_u64 (times GOLDEN_RATIO_64,
// modulo 2^64) before it adds rand_off, modulo the blocks; with a center
// rank 0 lands on n*center.
func TestScatter(t *testing.T) {
	w := NewDraw(Distribution{Kind: Zipf, Param: 1.2, Center: 0.25, HasCenter: true}, 1000, 4096, testDrawRand())
	if w.randOff != 250 {
		t.Fatalf("rand_off %d, want 1000*0.25", w.randOff)
	}
	// 0x61C8864680B583EB is 7046029254386353131: rank 1 lands on
	// (7046029254386353131+250) mod 1000; rank 3 wraps past 2^64.
	for _, c := range []struct{ rank, block uint64 }{{0, 250}, {1, 381}, {2, 512}, {3, 27}} {
		if got := w.scatter(c.rank); got != c.block {
			t.Errorf("rank %d lands on block %d, want %d", c.rank, got, c.block)
		}
	}
}

// TestZonedShares: zoned:60/10:30/20:10/70 sends 60% of the I/Os to the
// first 10% of the blocks, 30% to the next 20%, 10% to the last 70%, each
// uniform within its range (fio's __get_next_rand_offset_zoned); reads and
// writes have ranges of their own after a comma; zoned_abs counts bytes.
func TestZonedShares(t *testing.T) {
	const n, draws = 10_000, 100_000
	type rng struct {
		lo, hi uint64
		share  float64
	}
	cases := []struct {
		name string
		d    Distribution
		dir  int
		want []rng
	}{
		{"zoned", Distribution{Kind: Zoned, Zones: [2][]Zone{
			{{60, 10, 0}, {30, 20, 0}, {10, 70, 0}}, {{60, 10, 0}, {30, 20, 0}, {10, 70, 0}}}},
			0, []rng{{0, 1000, 0.6}, {1000, 3000, 0.3}, {3000, 10000, 0.1}}},
		{"zoned writes apart", Distribution{Kind: Zoned, Zones: [2][]Zone{
			{{100, 100, 0}}, {{50, 50, 0}, {50, 50, 0}}}},
			1, []rng{{0, 5000, 0.5}, {5000, 10000, 0.5}}},
		{"zoned_abs", Distribution{Kind: ZonedAbs, Zones: [2][]Zone{
			{{80, 0, 4096 * 100}, {20, 0, 4096 * 900}}, {{80, 0, 4096 * 100}, {20, 0, 4096 * 900}}}},
			0, []rng{{0, 100, 0.8}, {100, 1000, 0.2}, {1000, 10000, 0}}},
		{"a direction with no ranges is uniform", Distribution{Kind: Zoned, Zones: [2][]Zone{
			nil, {{100, 10, 0}}}},
			0, []rng{{0, 5000, 0.5}, {5000, 10000, 0.5}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := NewDraw(c.d, n, 4096, testDrawRand())
			got := make([]int, len(c.want))
			for range draws {
				b := w.Next(c.dir)
				for i, r := range c.want {
					if b >= r.lo && b < r.hi {
						got[i]++
					}
				}
			}
			for i, r := range c.want {
				if share := float64(got[i]) / draws; math.Abs(share-r.share) > 0.01 {
					t.Errorf("blocks %d..%d took %.3f of the I/Os, want %.2f", r.lo, r.hi, share, r.share)
				}
			}
		})
	}
}

// TestDistributionProblem: fio's ranges for each kind's parameter, the
// zoned ranges' sums and the center.
func TestDistributionProblem(t *testing.T) {
	for _, c := range []struct {
		name, want string // want "": accepted
		d          Distribution
	}{
		{"uniform", "", Distribution{}},
		{"zipf 1.1", "", Distribution{Kind: Zipf, Param: 1.1}},
		{"zipf theta 1", "zipf:1: give a theta", Distribution{Kind: Zipf, Param: 1}},
		{"zipf theta 0", "zipf:0: give a theta", Distribution{Kind: Zipf, Param: 0}},
		{"zipf theta +Inf", "give a theta", Distribution{Kind: Zipf, Param: math.Inf(1)}},
		{"pareto 0.2", "", Distribution{Kind: Pareto, Param: 0.2}},
		{"pareto h 1", "pareto:1: give an h", Distribution{Kind: Pareto, Param: 1}},
		{"normal 0", "", Distribution{Kind: Normal}},
		{"normal 100", "normal:100: give a deviation", Distribution{Kind: Normal, Param: 100}},
		{"center 1", "", Distribution{Kind: Zipf, Param: 1.2, Center: 1, HasCenter: true}},
		{"center 2", "center 2", Distribution{Kind: Zipf, Param: 1.2, Center: 2, HasCenter: true}},
		{"unknown kind", "give random, zipf", Distribution{Kind: "gamma"}},
		{"zoned", "", Distribution{Kind: Zoned, Zones: [2][]Zone{{{60, 10, 0}, {40, 90, 0}}, nil}}},
		{"zoned access 90", "add up to 90; fio needs 100", Distribution{Kind: Zoned, Zones: [2][]Zone{{{90, 50, 0}}, nil}}},
		{"zoned write access 90", "write ranges add up to 90", Distribution{Kind: Zoned, Zones: [2][]Zone{nil, {{90, 50, 0}}}}},
		{"zoned sizes 120", "add up to 120, more than 100", Distribution{Kind: Zoned, Zones: [2][]Zone{{{50, 60, 0}, {50, 60, 0}}, nil}}},
		{"zoned_abs sizes are bytes", "", Distribution{Kind: ZonedAbs, Zones: [2][]Zone{{{50, 0, 1 << 20}, {50, 0, 1 << 30}}, nil}}},
		{"a negative range", "outside 0..100", Distribution{Kind: Zoned, Zones: [2][]Zone{{{110, 10, 0}, {-10, 10, 0}}, nil}}},
		{"too many ranges", "at most 256", Distribution{Kind: Zoned, Zones: [2][]Zone{make([]Zone, 257), nil}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := c.d.Problem()
			if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
				t.Errorf("%q, want %q", got, c.want)
			}
		})
	}
}
