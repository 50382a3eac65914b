package blockbench

import (
	"math"
	"sort"
	"strings"
	"testing"
)

// distWorker is a worker of w, set up as a run sets it up, for its draws.
func distWorker(t *testing.T, w Workload) *worker {
	t.Helper()
	if w.NumJobs == 0 {
		w.NumJobs = 1
	}
	if w.IODepth == 0 {
		w.IODepth = 1
	}
	if w.Seed == 0 {
		w.Seed = DefaultSeed
	}
	if w.Filename == "" {
		w.Filename = "f"
	}
	w.IOEngine = EnginePsync
	w.Buffer = Buffer{Kind: BufferRandom}
	if err := w.validate(); err != nil {
		t.Fatal(err)
	}
	e, _ := engineByName(EnginePsync)
	wl := &workload{Workload: w, engine: e, depth: 1}
	if _, err := wl.checkZones(); err != nil {
		t.Fatal(err)
	}
	return newWorker(wl, 0)
}

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
		w := distWorker(t, Workload{RW: RandRead, BS: 4096, Size: n * 4096,
			Distribution: Distribution{Kind: DistZipf, Param: theta}})
		counts := make([]int, n)
		for range draws {
			r := w.dist.zipfRank()
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
		w := distWorker(t, Workload{RW: RandRead, BS: 4096, Size: n * 4096,
			Distribution: Distribution{Kind: DistPareto, Param: h}})
		hot := 0
		for range draws {
			if w.dist.paretoRank() < uint64(h*n) {
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
		w := distWorker(t, Workload{RW: RandRead, BS: 4096, Size: n * 4096,
			Distribution: Distribution{Kind: DistNormal, Param: dev}})
		var sum, sq float64
		for range draws {
			v := float64(w.dist.gaussValue())
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
	w := distWorker(t, Workload{RW: RandRead, BS: 4096, Size: 1000 * 4096,
		Distribution: Distribution{Kind: DistZipf, Param: 1.2, Center: 0.25, HasCenter: true}})
	if w.dist.randOff != 250 {
		t.Fatalf("rand_off %d, want 1000*0.25", w.dist.randOff)
	}
	// 0x61C8864680B583EB is 7046029254386353131: rank 1 lands on
	// (7046029254386353131+250) mod 1000; rank 3 wraps past 2^64.
	for _, c := range []struct{ rank, block uint64 }{{0, 250}, {1, 381}, {2, 512}, {3, 27}} {
		if got := w.dist.scatter(c.rank); got != c.block {
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
		{"zoned", Distribution{Kind: DistZoned, Zones: [2][]DistZone{
			{{60, 10, 0}, {30, 20, 0}, {10, 70, 0}}, {{60, 10, 0}, {30, 20, 0}, {10, 70, 0}}}},
			dirRead, []rng{{0, 1000, 0.6}, {1000, 3000, 0.3}, {3000, 10000, 0.1}}},
		{"zoned writes apart", Distribution{Kind: DistZoned, Zones: [2][]DistZone{
			{{100, 100, 0}}, {{50, 50, 0}, {50, 50, 0}}}},
			dirWrite, []rng{{0, 5000, 0.5}, {5000, 10000, 0.5}}},
		{"zoned_abs", Distribution{Kind: DistZonedAbs, Zones: [2][]DistZone{
			{{80, 0, 4096 * 100}, {20, 0, 4096 * 900}}, {{80, 0, 4096 * 100}, {20, 0, 4096 * 900}}}},
			dirRead, []rng{{0, 100, 0.8}, {100, 1000, 0.2}, {1000, 10000, 0}}},
		{"a direction with no ranges is uniform", Distribution{Kind: DistZoned, Zones: [2][]DistZone{
			nil, {{100, 10, 0}}}},
			dirRead, []rng{{0, 5000, 0.5}, {5000, 10000, 0.5}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := distWorker(t, Workload{RW: RandRW, BS: 4096, Size: n * 4096, Distribution: c.d, RandomMap: true})
			if w.perm != nil {
				t.Fatal("a zoned distribution kept the random map; fio forces norandommap=1")
			}
			got := make([]int, len(c.want))
			for range draws {
				b := w.randomBlock(c.dir)
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

// TestHotShare: through the scatter, the hottest 10% of the blocks take
// about the hottest 10% of the ranks' share (the hash maps several ranks
// to some blocks, which only adds to the hottest), and the I/Os touch
// far fewer distinct blocks than a uniform draw's.
func TestHotShare(t *testing.T) {
	const n, draws = 10_000, 100_000
	w := distWorker(t, Workload{RW: RandRead, BS: 4096, Size: n * 4096,
		Distribution: Distribution{Kind: DistZipf, Param: 1.2}})
	counts := make([]int, n)
	for range draws {
		counts[w.nextOffset(dirRead)/4096]++
	}
	sort.Sort(sort.Reverse(sort.IntSlice(counts)))
	top := 0
	for _, c := range counts[:n/10] {
		top += c
	}
	want := harmonic(n/10, 1.2) / harmonic(n, 1.2)
	if share := float64(top) / draws; share < want-0.02 || share > want+0.05 {
		t.Errorf("the hottest tenth of the blocks took %.3f of the I/Os, want about %.3f", share, want)
	}
	distinct := sort.SearchInts(reverseInts(counts), 1)
	if distinct := n - distinct; distinct > n/2 {
		t.Errorf("%d distinct blocks of %d in %d zipf:1.2 draws; uniform would touch nearly all", distinct, n, draws)
	}
}

// reverseInts is counts sorted ascending again.
func reverseInts(s []int) []int {
	out := append([]int(nil), s...)
	sort.Ints(out)
	return out
}

// TestStridedZones: fio's zonemode=strided as fio 3.33 ran each case
// (offsets from its latency log): zonesize bytes in a zone of zonerange,
// then zonerange+zoneskip on, back to the start past the end; a
// sequential position wraps within a zone smaller than zonesize.
func TestStridedZones(t *testing.T) {
	const m = 1 << 20
	cases := []struct {
		name  string
		size  int64
		zones StridedZones
		rw    RW
		// runs are the MiB-sized runs of offsets fio issued, as
		// (MiB, count of 4 KiB I/Os).
		runs [][2]int64
	}{
		{"zoneskip, wrapping", 16 * m, StridedZones{Size: m, Skip: 3 * m}, Read,
			[][2]int64{{0, 256}, {4, 256}, {8, 256}, {12, 256}, {0, 256}, {4, 256}, {8, 256}, {12, 256}, {0, 256}, {4, 256}, {8, 256}, {12, 256}, {0, 256}, {4, 256}, {8, 256}, {12, 256}}},
		{"zonesize above zonerange reads the zone twice", 8 * m, StridedZones{Size: 2 * m, Range: m, Skip: m}, Read,
			[][2]int64{{0, 512}, {2, 512}, {4, 512}, {6, 512}}},
		{"the pass ends in a last zone cut short", 10 * m, StridedZones{Size: 4 * m}, Read,
			[][2]int64{{0, 256}, {1, 256}, {2, 256}, {3, 256}, {4, 256}, {5, 256}, {6, 256}, {7, 256}, {8, 256}, {9, 256}}},
		{"no skip", 12 * m, StridedZones{Size: 4 * m}, Read,
			[][2]int64{{0, 256}, {1, 256}, {2, 256}, {3, 256}, {4, 256}, {5, 256}, {6, 256}, {7, 256}, {8, 256}, {9, 256}, {10, 256}, {11, 256}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := distWorker(t, Workload{RW: c.rw, BS: 4096, Size: c.size, Zones: c.zones})
			var runs [][2]int64
			for range c.size / 4096 {
				mib := w.nextOffset(dirRead) / m
				if len(runs) == 0 || runs[len(runs)-1][0] != mib {
					runs = append(runs, [2]int64{mib, 0})
				}
				runs[len(runs)-1][1]++
			}
			if len(runs) != len(c.runs) {
				t.Fatalf("runs %v, want fio's %v", runs, c.runs)
			}
			for i := range runs {
				if runs[i] != c.runs[i] {
					t.Fatalf("runs %v, want fio's %v", runs, c.runs)
				}
			}
		})
	}
}

// TestStridedRandom: random offsets stay in the current zone of zonerange
// bytes, zonesize bytes at a time, and with the random map each visit of
// a zone draws distinct blocks, the map starting over at every zone, as
// fio's fio_file_reset; fio 3.33 touched 1858 distinct blocks of 2048 in
// this job (16m, zonesize=1m zonerange=4m zoneskip=4m): two zones of 1024
// blocks visited 8 times, 256 distinct draws each, 1024*(1-0.75^8) = 922
// each expected.
func TestStridedRandom(t *testing.T) {
	const m = 1 << 20
	w := distWorker(t, Workload{RW: RandRead, BS: 4096, Size: 16 * m, RandomMap: true,
		Zones: StridedZones{Size: m, Range: 4 * m, Skip: 4 * m}})
	seen := map[int64]bool{}
	for visit := range 16 {
		zone := int64(visit%2) * 8 * m
		inVisit := map[int64]bool{}
		for range 256 {
			off := w.nextOffset(dirRead)
			if off < zone || off >= zone+4*m {
				t.Fatalf("visit %d: offset %d outside the zone at %d", visit, off, zone)
			}
			if inVisit[off] {
				t.Fatalf("visit %d: offset %d twice in one visit with the random map", visit, off)
			}
			inVisit[off] = true
			seen[off] = true
		}
	}
	if len(seen) < 1780 || len(seen) > 1910 {
		t.Errorf("%d distinct blocks; fio touched 1858, about 1844 expected", len(seen))
	}
}

// TestDistributionRefusals: fio's ranges, and the combinations clyde
// refuses rather than run something else than fio.
func TestDistributionRefusals(t *testing.T) {
	base := Workload{Name: "j", Filename: "f", RW: RandRead, BS: 4096, Size: 1 << 20, IODepth: 1, NumJobs: 1, IOEngine: EnginePsync, Buffer: Buffer{Kind: BufferRandom}}
	if err := base.validate(); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, want string
		edit       func(w *Workload)
	}{
		{"zipf theta 1", "zipf:1: give a theta", func(w *Workload) { w.Distribution = Distribution{Kind: DistZipf, Param: 1} }},
		{"zipf theta 0", "zipf:0: give a theta", func(w *Workload) { w.Distribution = Distribution{Kind: DistZipf, Param: 0} }},
		{"pareto h 1", "pareto:1: give an h", func(w *Workload) { w.Distribution = Distribution{Kind: DistPareto, Param: 1} }},
		{"normal 100", "normal:100: give a deviation", func(w *Workload) { w.Distribution = Distribution{Kind: DistNormal, Param: 100} }},
		{"center 2", "center 2", func(w *Workload) {
			w.Distribution = Distribution{Kind: DistZipf, Param: 1.2, Center: 2, HasCenter: true}
		}},
		{"zoned access 90", "add up to 90; fio needs 100", func(w *Workload) {
			w.Distribution = Distribution{Kind: DistZoned, Zones: [2][]DistZone{{{90, 50, 0}}, nil}}
		}},
		{"zoned sizes 120", "add up to 120, more than 100", func(w *Workload) {
			w.Distribution = Distribution{Kind: DistZoned, Zones: [2][]DistZone{{{50, 60, 0}, {50, 60, 0}}, nil}}
		}},
		{"zipf in strided zones", "draws it over the whole file", func(w *Workload) {
			w.Distribution = Distribution{Kind: DistZipf, Param: 1.2}
			w.Zones = StridedZones{Size: 64 << 10}
		}},
		{"rw=rw in strided zones", "rw=rw", func(w *Workload) { w.RW = ReadWrite; w.Zones = StridedZones{Size: 64 << 10} }},
		{"zonerange below bs", "smaller than bs", func(w *Workload) { w.Zones = StridedZones{Size: 64 << 10, Range: 512} }},
		{"zoneskip without zones", "need zonemode=strided", func(w *Workload) { w.Zones = StridedZones{Skip: 4096} }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := base
			c.edit(&w)
			if err := w.validate(); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one saying %q", err, c.want)
			}
		})
	}
	for _, c := range []struct {
		name  string
		rw    RW
		size  int64
		zones StridedZones
		d     Distribution
	}{
		// fio read 8 MiB of this 10 MiB job: it ended at the first offset
		// past the end, in the last zone.
		{"a last zone cut short", Read, 10 << 20, StridedZones{Size: 3 << 20, Skip: 1 << 20}, Distribution{}},
		{"a random draw in a last zone cut short", RandRead, 10 << 20, StridedZones{Size: 4 << 20}, Distribution{}},
		{"zoned_abs past the region", RandRead, 1 << 20, StridedZones{}, Distribution{Kind: DistZonedAbs, Zones: [2][]DistZone{{{100, 0, 2 << 20}}, nil}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := base
			w.RW, w.Size, w.Zones, w.Distribution = c.rw, c.size, c.zones, c.d
			if err := w.validate(); err != nil {
				t.Fatal(err)
			}
			if _, err := (&workload{Workload: w}).checkZones(); err == nil {
				t.Fatal("accepted")
			}
		})
	}
}

// TestDistributionDrawsAllocateNothing: the draws run once per I/O.
func TestDistributionDrawsAllocateNothing(t *testing.T) {
	for _, w := range []Workload{
		{RW: RandRead, BS: 4096, Size: 1 << 20, Distribution: Distribution{Kind: DistZipf, Param: 1.2}},
		{RW: RandRead, BS: 4096, Size: 1 << 20, Distribution: Distribution{Kind: DistPareto, Param: 0.2}},
		{RW: RandRead, BS: 4096, Size: 1 << 20, Distribution: Distribution{Kind: DistNormal, Param: 10}},
		{RW: RandRW, BS: 4096, Size: 1 << 20, Distribution: Distribution{Kind: DistZoned, Zones: [2][]DistZone{{{100, 10, 0}}, {{100, 10, 0}}}}},
		{RW: RandRead, BS: 4096, Size: 1 << 20, RandomMap: true, Zones: StridedZones{Size: 64 << 10, Skip: 64 << 10}},
		{RW: Read, BS: 4096, Size: 1 << 20, Zones: StridedZones{Size: 64 << 10, Skip: 64 << 10}},
	} {
		wk := distWorker(t, w)
		if n := testing.AllocsPerRun(1000, func() { wk.nextOffset(dirRead) }); n != 0 {
			t.Errorf("%s %v zones %v: %v allocations per draw", w.RW, w.Distribution, w.Zones, n)
		}
	}
}

// BenchmarkOffsetDraw is the cost of one offset per distribution, the
// part of an I/O's CPU the distribution adds.
func BenchmarkOffsetDraw(b *testing.B) {
	for _, c := range []struct {
		name string
		d    Distribution
		rmap bool
	}{
		{"uniform", Distribution{}, false},
		{"uniform-map", Distribution{}, true},
		{"zipf:1.2", Distribution{Kind: DistZipf, Param: 1.2}, false},
		{"pareto:0.2", Distribution{Kind: DistPareto, Param: 0.2}, false},
		{"normal:10", Distribution{Kind: DistNormal, Param: 10}, false},
		{"zoned", Distribution{Kind: DistZoned, Zones: [2][]DistZone{{{60, 10, 0}, {40, 90, 0}}, nil}}, false},
	} {
		b.Run(c.name, func(b *testing.B) {
			w := distWorker(&testing.T{}, Workload{RW: RandRead, BS: 4096, Size: 1 << 30, Distribution: c.d, RandomMap: c.rmap})
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				w.nextOffset(dirRead)
			}
		})
	}
}

// TestZoneNoteOnALargerFile: fio wraps its zones at the end of the file,
// clyde at the end of the region; on a file larger than the region the
// result says so.
func TestZoneNoteOnALargerFile(t *testing.T) {
	w := Workload{Name: "z", RW: Read, BS: 4096, Size: 1 << 20, Zones: StridedZones{Size: 64 << 10, Skip: 64 << 10}}
	for _, c := range []struct {
		file int64
		want bool
	}{{1 << 20, false}, {4 << 20, true}} {
		note, err := (&workload{Workload: w, target: &target{size: c.file}}).checkZones()
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(note, "fio walks them on to the end of the file"); got != c.want {
			t.Errorf("file of %d bytes, region of %d: note %q", c.file, w.Size, note)
		}
	}
}
