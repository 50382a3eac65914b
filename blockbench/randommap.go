package blockbench

import (
	"math/bits"
	"math/rand/v2"
)

// blockPerm draws the blocks 0..n-1 of a region in a random order in
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
type blockPerm struct {
	n, mask     uint64
	shift       uint
	state, incr uint64
}

// lcgMul is Knuth's MMIX multiplier; it is 1 mod 4, which a full period
// modulo a power of two needs.
const lcgMul = 6364136223846793005

func newBlockPerm(n uint64, rng *rand.PCG) *blockPerm {
	k := uint(bits.Len64(n - 1))
	p := &blockPerm{n: n, mask: 1<<k - 1, shift: max(1, k/2)}
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

// next is the next block.
func (p *blockPerm) next() uint64 {
	for {
		p.state = (p.state*lcgMul + p.incr) & p.mask
		if v := p.scatter(p.state); v < p.n {
			return v
		}
	}
}

// scatter is a bijection of [0, 2^k): xor-shifts and an odd multiplier,
// each invertible modulo 2^k.
func (p *blockPerm) scatter(x uint64) uint64 {
	x ^= x >> p.shift
	x = (x * 0x9e3779b97f4a7c15) & p.mask
	x ^= x >> p.shift
	return x
}
