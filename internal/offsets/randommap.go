package offsets

import (
	"math/bits"
	"math/rand/v2"
)

// Perm draws the blocks 0..n-1 of a region in a random order in
// which each comes once per n draws: fio's random map (norandommap=0),
// which makes a random-write pass overwrite every block, where drawing
// with replacement covers about 63% of them. fio keeps a bitmap (or walks
// a full-period LFSR, random_generator=lfsr); clyde walks a full-period
// generator too, with no memory per block: a linear congruential step
// modulo the next power of two 2^k >= n, whose period is all 2^k values
// (multiplier ≡ 1 mod 4, odd increment), seen through a fixed bijection
// of k bits that scatters neighbouring states, with the values >= n
// skipped (fewer than half of them, so under two steps per draw on
// average). The sequence repeats every pass.
type Perm struct {
	n, mask     uint64
	shift       uint
	state, incr uint64
}

// lcgMul is Knuth's MMIX multiplier; it is 1 mod 4, which a full period
// modulo a power of two needs.
const lcgMul = 6364136223846793005

// NewPerm is a random map over n blocks, its order drawn from rng.
func NewPerm(n uint64, rng *rand.PCG) *Perm {
	k := uint(bits.Len64(n - 1))
	p := &Perm{n: n, mask: 1<<k - 1, shift: max(1, k/2)}
	if k == 64 {
		p.mask = ^uint64(0)
	}
	p.state = rng.Uint64() & p.mask
	p.incr = (rng.Uint64() | 1) & p.mask
	if p.mask == 1 {
		p.incr = 1
	}
	return p
}

// Next is the next block.
func (p *Perm) Next() uint64 {
	for {
		p.state = (p.state*lcgMul + p.incr) & p.mask
		if v := p.scatter(p.state); v < p.n {
			return v
		}
	}
}

// Reseed starts the map over: a new order of the blocks, as fio's
// fio_file_reset clears its random map at the start of every strided
// zone.
func (p *Perm) Reseed(rng *rand.PCG) {
	p.state = rng.Uint64() & p.mask
	p.incr = (rng.Uint64() | 1) & p.mask
	if p.mask == 1 {
		p.incr = 1
	}
}

// scatter is a bijection of [0, 2^k): xor-shifts and an odd multiplier,
// each invertible modulo 2^k.
func (p *Perm) scatter(x uint64) uint64 {
	x ^= x >> p.shift
	x = (x * 0x9e3779b97f4a7c15) & p.mask
	x ^= x >> p.shift
	return x
}

// Map is fio's random map with I/Os of several sizes (lib/axmap.c
// as io_u.c uses it): a bit per block of the smallest size of any
// direction, set for every block an I/O covers. A random draw that lands
// on a used block moves to the next free one (wrapping to the start), and
// an I/O is cut where the blocks after its first stop being free. Bits
// 0..n-1 are the region's; the rest of the last word takes the tail of an
// I/O that ends in the last partial block, as fio's map takes it in its
// last word; past that word (fio's null engine lets the last I/O run past the
// region) a run stops, as fio's, whose map has no room there. A second
// level, a bit per word of the first that is full, keeps the search for a
// free block short as the map fills.
type Map struct {
	n     uint64
	words []uint64
	full  []uint64
}

// NewMap is a map of n blocks, all free.
func NewMap(n uint64) *Map {
	nw := max(1, (n+63)/64)
	return &Map{n: n, words: make([]uint64, nw), full: make([]uint64, nw/64+1)}
}

// Reset frees every block, as fio's fio_file_reset at the start of a
// pass.
func (m *Map) Reset() {
	clear(m.words)
	clear(m.full)
}

// IsSet says an I/O covered block b this pass.
func (m *Map) IsSet(b uint64) bool { return m.words[b/64]&(1<<(b%64)) != 0 }

// NextFree is fio's axmap_next_free: the first free block after b, or
// from the start of the map when there is none after it; false when every
// block is used (or b is past the map).
func (m *Map) NextFree(b uint64) (uint64, bool) {
	if b >= m.n {
		return 0, false
	}
	next := b + 1
	if next == m.n {
		next = 0
	}
	if v, ok := m.firstFree(next); ok {
		return v, true
	}
	if next != 0 {
		return m.firstFree(0)
	}
	return 0, false
}

// firstFree is the first free block at or after b, below n.
func (m *Map) firstFree(b uint64) (uint64, bool) {
	w := b / 64
	if x := ^m.words[w] & (^uint64(0) << (b % 64)); x != 0 {
		return m.below(w*64 + uint64(bits.TrailingZeros64(x)))
	}
	for i := w + 1; i < uint64(len(m.words)); {
		fi := i / 64
		fx := ^m.full[fi] & (^uint64(0) << (i % 64))
		if fx == 0 {
			i = (fi + 1) * 64
			continue
		}
		i = fi*64 + uint64(bits.TrailingZeros64(fx))
		if i >= uint64(len(m.words)) {
			break
		}
		return m.below(i*64 + uint64(bits.TrailingZeros64(^m.words[i])))
	}
	return 0, false
}

func (m *Map) below(v uint64) (uint64, bool) { return v, v < m.n }

// SetRun is fio's axmap_set_nr: it marks up to nr blocks from b, stopping
// at the first one already used or the end of the map's last word, and
// says how many it marked.
func (m *Map) SetRun(b, nr uint64) uint64 {
	var set uint64
	for nr > 0 && b/64 < uint64(len(m.words)) {
		w, bit := b/64, b%64
		k := min(nr, 64-bit)
		mask := ^uint64(0) >> (64 - k) << bit
		if over := m.words[w] & mask; over != 0 {
			k = uint64(bits.TrailingZeros64(over)) - bit
			mask = ^uint64(0) >> (64 - k) << bit
			if k == 0 {
				return set
			}
			nr = k // the run ends at the used block
		}
		m.words[w] |= mask
		if m.words[w] == ^uint64(0) {
			m.full[w/64] |= 1 << (w % 64)
		}
		set += k
		b += k
		nr -= k
	}
	return set
}
