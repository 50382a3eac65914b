package blocksize

import (
	"math/rand/v2"

	"github.com/clydebench/clyde/internal/offsets"
)

// frand32Max is fio's FRAND32_MAX, which the size draws divide by.
const frand32Max = offsets.Frand32Max

// maxSizeDraws bounds get_next_buflen's loop, which draws again while the
// size does not fit before the end of the region: fio spins for ever on a
// split whose sizes with a share never fit where its smallest (with none)
// would; clyde ends the pass.
const maxSizeDraws = 1 << 20

// Draw is one direction's sizes and random offsets as a worker draws
// them, fio 3.33's get_next_buflen and last_block.
type Draw struct {
	// Min and Max are the direction's sizes; Align the step of its
	// random offsets (fio's ba: blockalign for random I/O, else Min).
	Min, Max, Align int64
	// LastBlock is fio's last_block: random offsets are Align times a
	// number below it.
	LastBlock uint64
	// split is bssplit's sizes in fio's order; nil for a range.
	split             []splitStep
	varies, unaligned bool
}

// splitStep is one size of a split and the draws that take it: r below
// below, fio's r / perc <= FRAND32_MAX / 100 with perc the shares so far.
type splitStep struct {
	size  int64
	below uint64
}

// NewDraw makes direction ds's draws over a region of span bytes, for
// random offsets when random (blockalign applies to those alone), sizes
// kept as drawn when unaligned (bs_unaligned).
func NewDraw(ds Dir, unaligned, random bool, span int64) Draw {
	d := Draw{Min: ds.Min, Max: ds.Max, Align: ds.Align, varies: ds.Min != ds.Max, unaligned: unaligned}
	if d.Align == 0 || !random {
		d.Align = ds.Min // fio: ba is min_bs but for random I/O
	}
	if ds.Min > d.Align {
		span -= ds.Min - d.Align
	}
	d.LastBlock = uint64(span / d.Align)
	var cum uint64
	for _, e := range Resolve(ds.Split) {
		if e.Pct == 0 {
			continue // fio skips a size whose share came to 0
		}
		cum += uint64(uint32(e.Pct))
		d.split = append(d.split, splitStep{size: e.Size, below: splitBelow(cum)})
	}
	if len(ds.Split) > 0 && d.split == nil {
		d.split = []splitStep{} // every share 0: no size, as fio's loop finds none
	}
	return d
}

// splitBelow is the draws r with r/cum <= FRAND32_MAX/100: r <
// (FRAND32_MAX/100 + 1) * cum, all of them once cum reaches 100.
func splitBelow(cum uint64) uint64 {
	if cum >= 100 {
		return 1 << 32
	}
	return (frand32Max/100 + 1) * cum
}

// Size is fio's get_next_buflen for an I/O at off in a region that ends
// at end: the direction's one size, or a size drawn from rng out of its
// range or split that fits before end (0 when even the smallest does
// not), cut to a multiple of the smallest unless unaligned, and to the
// largest.
func (d *Draw) Size(rng *rand.PCG, off, end int64) int64 {
	if !d.varies {
		return d.Min
	}
	if off+d.Min > end {
		return 0
	}
	for range maxSizeDraws {
		r := uint64(uint32(rng.Uint64() >> 32))
		var b int64
		if d.split == nil {
			b = d.Min + int64(float64(d.Max)*(float64(r)/(frand32Max+1.0)))
		} else {
			for i := range d.split {
				s := &d.split[i]
				b = s.size
				if r < s.below && off+b <= end {
					break
				}
			}
		}
		if !d.unaligned {
			b -= b % d.Min
		}
		b = min(b, d.Max)
		if off+b <= end {
			return b
		}
	}
	return 0
}
