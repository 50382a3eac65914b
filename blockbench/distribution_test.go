package blockbench

import (
	"github.com/clydebench/clyde/internal/blocktarget"
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
			w.Distribution = Distribution{Kind: DistZoned, Zones: [2][]DistZone{{{AccessPct: 90, SizePct: 50}}, nil}}
		}},
		{"zoned sizes 120", "add up to 120, more than 100", func(w *Workload) {
			w.Distribution = Distribution{Kind: DistZoned, Zones: [2][]DistZone{{{AccessPct: 50, SizePct: 60}, {AccessPct: 50, SizePct: 60}}, nil}}
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
		{"zoned_abs past the region", RandRead, 1 << 20, StridedZones{}, Distribution{Kind: DistZonedAbs, Zones: [2][]DistZone{{{AccessPct: 100, Size: 2 << 20}}, nil}}},
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
		{RW: RandRW, BS: 4096, Size: 1 << 20, Distribution: Distribution{Kind: DistZoned, Zones: [2][]DistZone{{{AccessPct: 100, SizePct: 10}}, {{AccessPct: 100, SizePct: 10}}}}},
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
		{"zoned", Distribution{Kind: DistZoned, Zones: [2][]DistZone{{{AccessPct: 60, SizePct: 10}, {AccessPct: 40, SizePct: 90}}, nil}}, false},
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
		note, err := (&workload{Workload: w, target: &target{Target: &blocktarget.Target{Size: c.file}}}).checkZones()
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(note, "fio walks them on to the end of the file"); got != c.want {
			t.Errorf("file of %d bytes, region of %d: note %q", c.file, w.Size, note)
		}
	}
}

// TestDistributionTurnsOffTheMap: any distribution but random draws
// without the random map, as fio forces norandommap=1 for them; a uniform
// one keeps it, and its draws come from the map.
func TestDistributionTurnsOffTheMap(t *testing.T) {
	zoned := Distribution{Kind: DistZoned, Zones: [2][]DistZone{{{AccessPct: 100, SizePct: 10}}, nil}}
	if w := distWorker(t, Workload{RW: RandRW, BS: 4096, Size: 1 << 20, Distribution: zoned, RandomMap: true}); w.perm != nil || w.dist == nil {
		t.Error("a zoned distribution kept the random map; fio forces norandommap=1")
	}
	w := distWorker(t, Workload{RW: RandRead, BS: 4096, Size: 1 << 20, RandomMap: true})
	if w.perm == nil || w.dist != nil {
		t.Fatal("a uniform distribution with the random map has no map")
	}
	seen := map[uint64]bool{}
	for range 256 {
		seen[w.randomBlock(dirRead)] = true
	}
	if len(seen) != 256 {
		t.Errorf("%d distinct blocks in a pass of 256 with the random map", len(seen))
	}
}
