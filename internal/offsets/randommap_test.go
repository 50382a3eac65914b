package offsets

import (
	"math/rand/v2"
	"testing"
)

// testRand is blockbench's newRand: the stream a worker of a job seeded
// with seed draws from, so that these draws are the ones a run makes.
func testRand(seed, stream uint64) *rand.PCG {
	return rand.NewPCG(seed, 0x9e3779b97f4a7c15^(stream*0xbf58476d1ce4e5b9+1))
}

// testSeed is blockbench's DefaultSeed.
const testSeed = 0x5eed

// TestBlockPerm: fio's random map, each block once per pass, for sizes
// around powers of two, and the next pass again.
func TestBlockPerm(t *testing.T) {
	for _, n := range []uint64{2, 3, 4, 5, 63, 64, 65, 1000, 4096} {
		p := NewPerm(n, testRand(testSeed, 1))
		for pass := range 2 {
			seen := make([]bool, n)
			for range n {
				b := p.Next()
				if b >= n || seen[b] {
					t.Fatalf("n=%d pass %d: block %d drawn twice or out of range", n, pass, b)
				}
				seen[b] = true
			}
		}
	}
}

// TestBlockPermOrder: two workers draw different orders, and an order is
// not the sequential one.
func TestBlockPermOrder(t *testing.T) {
	a, b := NewPerm(256, testRand(testSeed, 1)), NewPerm(256, testRand(testSeed, 2))
	same, inOrder := 0, 0
	prev := uint64(0)
	for i := range 256 {
		x, y := a.Next(), b.Next()
		if x == y {
			same++
		}
		if i > 0 && x == prev+1 {
			inOrder++
		}
		prev = x
	}
	if same > 16 || inOrder > 16 {
		t.Errorf("%d of 256 draws agree between workers, %d follow their predecessor: not a random order", same, inOrder)
	}
}

// TestBlockMap checks the map against a plain slice of bools through
// random marks and searches: fio's axmap_set_nr (a run up to the first
// used block) and axmap_next_free (the first free block after one, from
// the start when there is none after it).
func TestBlockMap(t *testing.T) {
	for _, n := range []uint64{1, 63, 64, 65, 200, 4096, 70000} {
		m := NewMap(n)
		capBits := (n + 63) / 64 * 64 // bits the map holds past n are in its last word
		ref := make([]bool, capBits)
		rng := testRand(7, n)
		for range 4 * n {
			b, nr := Below(rng, n), 1+Below(rng, 200)
			set := m.SetRun(b, nr)
			var want uint64
			for i := b; i < b+nr; i++ {
				if i >= capBits {
					break // past the map's last word: the run stops
				}
				if ref[i] {
					break
				}
				ref[i] = true
				want++
			}
			if set != want {
				t.Fatalf("n=%d: setRun(%d, %d) = %d, want %d", n, b, nr, set, want)
			}
			q := Below(rng, n)
			got, ok := m.NextFree(q)
			wantB, wantOK := refNextFree(ref[:n], q)
			if ok != wantOK || (ok && got != wantB) {
				t.Fatalf("n=%d: nextFree(%d) = %d %v, want %d %v", n, q, got, ok, wantB, wantOK)
			}
			if m.IsSet(q) != ref[q] {
				t.Fatalf("n=%d: isSet(%d) = %v", n, q, !ref[q])
			}
		}
		m.Reset()
		if _, ok := m.NextFree(0); !ok && n > 1 {
			t.Errorf("n=%d: no free block after reset", n)
		}
	}
}

func refNextFree(used []bool, b uint64) (uint64, bool) {
	n := uint64(len(used))
	for i := b + 1; i < n; i++ {
		if !used[i] {
			return i, true
		}
	}
	for i := uint64(0); i < n; i++ {
		if !used[i] {
			return i, true
		}
	}
	return 0, false
}

// TestBlockMapRunStops: a run stops at the first used block, and a run
// that starts on one marks nothing.
func TestBlockMapRunStops(t *testing.T) {
	m := NewMap(256)
	if got := m.SetRun(70, 1); got != 1 {
		t.Fatalf("setRun(70, 1) = %d", got)
	}
	if got := m.SetRun(60, 16); got != 10 {
		t.Errorf("setRun(60, 16) over a used 70 = %d, want 10 (60..69)", got)
	}
	if got := m.SetRun(65, 4); got != 0 {
		t.Errorf("setRun on a used block = %d, want 0", got)
	}
	if b, ok := m.NextFree(59); !ok || b != 71 {
		t.Errorf("nextFree(59) = %d %v, want 71", b, ok)
	}
	m.SetRun(71, 185)
	if b, ok := m.NextFree(255); !ok || b != 0 {
		t.Errorf("nextFree(255) = %d %v, want 0: the search wraps", b, ok)
	}
	m.SetRun(0, 60)
	if b, ok := m.NextFree(3); ok {
		t.Errorf("nextFree on a full map = %d, want none", b)
	}
}
