package blocksize

import (
	"testing"
)

// placeAll places the I/Os of one pass in slot until Place fails, or n
// of them when it does not (random offsets without the map, whose pass
// ends on its bytes, the caller's).
func placeAll(t *testing.T, p *Placer, slot, n int) (offs, sizes []int64, wrapped bool) {
	t.Helper()
	rng := newRand()
	for range n {
		off, size, w, ok := p.Place(slot, rng)
		if !ok {
			return offs, sizes, wrapped
		}
		offs, sizes, wrapped = append(offs, off), append(sizes, size), wrapped || w
	}
	if p.amap != nil || !p.random {
		t.Fatalf("a pass of more than %d I/Os", n)
	}
	return offs, sizes, wrapped
}

// coverage says whether the I/Os cover [start, start+size) once each.
func coverage(offs, sizes []int64, start, size int64) (overlap, missing int64) {
	seen := make([]int8, size/512)
	for i, off := range offs {
		for b := (off - start) / 512; b < (off-start+sizes[i])/512; b++ {
			seen[b]++
		}
	}
	for _, n := range seen {
		switch {
		case n > 1:
			overlap++
		case n == 0:
			missing++
		}
	}
	return overlap, missing
}

// TestPlacer: a sequential pass covers the region end to end, each I/O
// where the last ended; a random one with the map covers it once, I/Os
// cut at used blocks; a time-based sequential one goes back to the start;
// no I/O passes the target's end.
func TestPlacer(t *testing.T) {
	split := Sizes{Dirs: [3]Dir{
		splitDir(512, 64*kib, Share{Size: 512, Pct: 10}, Share{Size: 4 * kib, Pct: 60}, Share{Size: 16 * kib, Pct: 20}, Share{Size: 64 * kib, Pct: 10}),
		one(4 * kib), one(4 * kib)}}
	const start, size = 1 << 20, 4 << 20
	cases := []struct {
		name   string
		r      Region
		cover  bool
		inLine bool
	}{
		{"sequential", Region{Start: start, Size: size, Limit: start + size}, true, true},
		{"random with the map", Region{Start: start, Size: size, Limit: start + size, Random: true, RandomMap: true}, true, false},
		{"random without the map", Region{Start: start, Size: size, Limit: start + size, Random: true}, false, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := NewPlacer(&split, c.r, newRand())
			offs, sizes, _ := placeAll(t, p, Read, 1<<16)
			if len(offs) == 0 {
				t.Fatal("no I/O placed")
			}
			for i, off := range offs {
				if off < start || off+sizes[i] > start+size {
					t.Fatalf("I/O %d at %d of %d outside the region", i, off, sizes[i])
				}
				if c.inLine && i > 0 && off != offs[i-1]+sizes[i-1] {
					t.Fatalf("I/O %d at %d, the last ended at %d", i, off, offs[i-1]+sizes[i-1])
				}
			}
			if overlap, missing := coverage(offs, sizes, start, size); c.cover && (overlap != 0 || missing != 0) {
				t.Errorf("%d sectors twice, %d none", overlap, missing)
			}
			p.Reset()
			if again, _, _ := placeAll(t, p, Read, 1<<16); len(again) == 0 {
				t.Error("no I/O after Reset")
			}
		})
	}
	t.Run("time-based goes back to the start", func(t *testing.T) {
		p := NewPlacer(&split, Region{Start: start, Size: 64 * kib, Limit: start + size, TimeBased: true}, newRand())
		rng, wrapped := newRand(), false
		for range 1000 {
			off, _, w, ok := p.Place(Read, rng)
			if !ok {
				t.Fatal("a time-based sequential pass ended")
			}
			if w && off != start {
				t.Fatalf("wrapped to %d", off)
			}
			wrapped = wrapped || w
		}
		if !wrapped {
			t.Error("never went back to the start")
		}
	})
}
