package blocksize

import (
	"math"
	"math/rand/v2"
	"testing"
)

// newRand is blockbench's worker stream for seed 1, worker 1: the draws
// these tests make are the ones they made there.
func newRand() *rand.PCG {
	return rand.NewPCG(1, 0x9e3779b97f4a7c15^(1*0xbf58476d1ce4e5b9+1))
}

func splitDir(lo, hi int64, entries ...Share) Dir {
	return Dir{Min: lo, Max: hi, Split: entries}
}

// TestSizeDraw: get_next_buflen's shares, drawn many times: a range cut
// to multiples of its smallest size (3k-8k: 3k and 6k 37.5% each, 8k the
// rest, as fio 3.33's log shows), a split's shares (the share past the
// last one going to the last size tried), sizes kept unaligned, and only
// sizes that fit before the region's end (a draw of one that does not is
// drawn again, so the others keep their proportions).
func TestSizeDraw(t *testing.T) {
	cases := []struct {
		name      string
		d         Dir
		unaligned bool
		off       int64
		want      map[int64]float64 // share in percent; nil: check alone
		chk       func(b int64) bool
	}{
		{"range 1k-4k", Dir{Min: kib, Max: 4 * kib}, false, 0, map[int64]float64{kib: 25, 2 * kib: 25, 3 * kib: 25, 4 * kib: 25}, nil},
		{"range 3k-8k", Dir{Min: 3 * kib, Max: 8 * kib}, false, 0, map[int64]float64{3 * kib: 37.5, 6 * kib: 37.5, 8 * kib: 25}, nil},
		{"split", splitDir(4*kib, 64*kib, Share{Size: 4 * kib, Pct: 10}, Share{Size: 64 * kib, Pct: 50}, Share{Size: 32 * kib, Pct: 40}), false, 0,
			map[int64]float64{4 * kib: 10, 32 * kib: 40, 64 * kib: 50}, nil},
		{"split short of 100: the rest to the last tried", splitDir(4*kib, 64*kib, Share{Size: 4 * kib, Pct: 10}, Share{Size: 64 * kib, Pct: 50}), false, 0,
			map[int64]float64{4 * kib: 10, 64 * kib: 90}, nil},
		{"split near the end: only what fits", splitDir(4*kib, 64*kib, Share{Size: 4 * kib, Pct: 10}, Share{Size: 64 * kib, Pct: 50}, Share{Size: 32 * kib, Pct: 40}), false, 1<<20 - 40*kib,
			map[int64]float64{4 * kib: 20, 32 * kib: 80}, nil}, // a draw for 64k is drawn again
		{"split near the end: a size that does not fit gives its draws to the next", splitDir(4*kib, 16*kib,
			Share{Size: 16 * kib, Pct: 20}, Share{Size: 4 * kib, Pct: 30}, Share{Size: 8 * kib, Pct: 50}), false, 1<<20 - 8*kib,
			map[int64]float64{4 * kib: 50, 8 * kib: 50}, nil}, // fio's loop goes on past a size that does not fit
		{"unaligned", Dir{Min: 4 * kib, Max: 16 * kib}, true, 0, nil,
			func(b int64) bool { return b >= 4*kib && b <= 16*kib }},
		{"split cut to a multiple of a smallest that is no power of two", splitDir(3*kib, 4*kib, Share{Size: 3 * kib, Pct: 50}, Share{Size: 4 * kib, Pct: 50}), false, 0,
			map[int64]float64{3 * kib: 100}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			const end, n = 1 << 20, 200000
			d, rng := NewDraw(c.d, c.unaligned, true, end), newRand()
			counts := map[int64]int{}
			odd := 0
			for range n {
				b := d.Size(rng, c.off, end)
				counts[b]++
				if b%kib != 0 {
					odd++
				}
				if c.chk != nil && !c.chk(b) {
					t.Fatalf("size %d", b)
				}
				if c.off+b > end {
					t.Fatalf("size %d at %d does not fit before %d", b, c.off, end)
				}
			}
			if c.unaligned && odd < n/2 {
				t.Errorf("%d of %d sizes off a KiB boundary: bs_unaligned keeps them as drawn", odd, n)
			}
			checkShares(t, counts, n, c.want)
		})
	}
}

func checkShares(t *testing.T, counts map[int64]int, n int, want map[int64]float64) {
	t.Helper()
	for size, share := range want {
		if got := float64(counts[size]) * 100 / float64(n); math.Abs(got-share) > 0.5 {
			t.Errorf("size %d: %.2f%%, want %.1f%% (all: %v)", size, got, share, counts)
		}
	}
	for size := range counts {
		if _, ok := want[size]; want != nil && !ok {
			t.Errorf("size %d drawn, not one of %v", size, want)
		}
	}
}

// TestNewDraw: fio's ba and last_block: blockalign for random offsets
// alone, the region less what the smallest size exceeds it by; a split
// whose shares all came to 0 has no size, and a size too large for what
// is left of the region none either.
func TestNewDraw(t *testing.T) {
	cases := []struct {
		name       string
		d          Dir
		random     bool
		wantAlign  int64
		wantBlocks uint64
	}{
		{"sequential: Min", Dir{Min: 8 * kib, Max: 8 * kib, Align: 4 * kib}, false, 8 * kib, 128},
		{"random with blockalign", Dir{Min: 8 * kib, Max: 8 * kib, Align: 4 * kib}, true, 4 * kib, 255},
		{"random without: Min", Dir{Min: 8 * kib, Max: 16 * kib}, true, 8 * kib, 128},
		{"blockalign above Min", Dir{Min: 4 * kib, Max: 4 * kib, Align: 64 * kib}, true, 64 * kib, 16},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := NewDraw(c.d, false, c.random, 1<<20)
			if d.Align != c.wantAlign || d.LastBlock != c.wantBlocks {
				t.Errorf("align %d, last block %d; want %d, %d", d.Align, d.LastBlock, c.wantAlign, c.wantBlocks)
			}
			if bs, blocks := c.d.Grid(1 << 20); c.random && (bs != c.wantAlign || uint64(blocks) != c.wantBlocks) {
				t.Errorf("Grid %d, %d; want %d, %d as the draw", bs, blocks, c.wantAlign, c.wantBlocks)
			}
		})
	}
	zero := NewDraw(splitDir(4*kib, 8*kib, Share{Size: 4 * kib, Pct: NoPct}, Share{Size: 8 * kib, Pct: 100}, Share{Size: 16 * kib, Pct: NoPct}), false, true, 1<<20)
	if b := zero.Size(newRand(), 0, 1<<20); b != 8*kib {
		t.Errorf("split with the rest at 0 drew %d, want 8192 (the sizes at 0 skipped)", b)
	}
	if b := zero.Size(newRand(), 1<<20-kib, 1<<20); b != 0 {
		t.Errorf("a draw with 1k left drew %d, want 0", b)
	}
}

// FuzzDraw: whatever the sizes, a drawn size is 0 or fits before the
// end, is no larger than the largest, and unless unaligned no smaller
// than the smallest and a multiple of it or the largest itself (fio cuts
// to a multiple of Min, then to Max).
func FuzzDraw(f *testing.F) {
	f.Add(int64(4096), int64(65536), int64(0), int64(4096), uint8(10), int64(0), false, uint64(1))
	f.Add(int64(3072), int64(8192), int64(0), int64(0), uint8(0), int64(1<<20-40960), false, uint64(2))
	f.Add(int64(512), int64(1<<20), int64(4096), int64(1<<20), uint8(100), int64(0), true, uint64(3))
	f.Fuzz(func(t *testing.T, lo, hi, align, splitSize int64, pct uint8, off int64, unaligned bool, seed uint64) {
		const end = 1 << 24
		d := Dir{Min: lo, Max: hi, Align: align}
		if splitSize != 0 {
			p := int(pct)
			if p == 0 {
				p = NoPct
			}
			d.Split = []Share{{Size: splitSize, Pct: p}, {Size: lo, Pct: NoPct}}
		}
		if (&Sizes{Dirs: [3]Dir{d, d, d}}).Validate() != nil || off < 0 || off >= end {
			return
		}
		if splitSize != 0 && (splitSize < lo || splitSize > hi) {
			return // a reader gives Min and Max as the split's own
		}
		dr := NewDraw(d, unaligned, true, end)
		rng := rand.NewPCG(seed, seed^0x5555)
		for range 64 {
			b := dr.Size(rng, off, end)
			switch {
			case b == 0:
				continue
			case off+b > end:
				t.Fatalf("size %d at %d past %d", b, off, end)
			case b > hi || (!unaligned && b < lo):
				t.Fatalf("size %d outside %d-%d", b, lo, hi)
			case !unaligned && b%lo != 0 && b != hi:
				t.Fatalf("size %d neither a multiple of %d nor the largest", b, lo)
			}
		}
	})
}
