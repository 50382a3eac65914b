package blocksize

import (
	"math/rand/v2"

	"github.com/clydebench/clyde/internal/offsets"
)

// Placer places one I/O at a time with sizes that vary, as fio 3.33's
// fill_io_u makes it (io_u.c), given the I/O's slot (read, or the write
// slot: a write, or a trim for the trim modes):
//   - the offset: a sequential one where the direction's last I/O ended
//     (fio's last_pos, one per direction); a random one a multiple of the
//     direction's alignment below last_block (the region, less what the
//     direction's smallest size exceeds its alignment by), moved on to
//     the next free block when the random map has its block used;
//   - the size: fio's get_next_buflen (Draw.Size);
//   - with the random map, the blocks of the smallest size of the I/O's
//     direction it covers marked used, and the I/O cut where a used one
//     starts (mark_random_map; the map has a bit per block of the
//     smallest size of all three directions, so a direction with larger
//     blocks indexes it as fio's does, in its own units).
//
// Place fails, as fill_io_u, when no I/O can be placed: a sequential
// direction at the end of the region (unless time-based, which goes back
// to the start), a random map with no free block or one that leads past
// the region, a direction's smallest size not fitting before the end.
// The passes and their bytes are the caller's.
type Placer struct {
	draws [3]Draw
	// rng draws the sizes (fio's bsrange_state), a stream of its own.
	rng *rand.PCG
	// start and end are the region, limit the target's end (fio's
	// real_file_size), past which no I/O goes.
	start, end, limit int64
	pos               [3]int64
	amap              *offsets.Map
	dist              [3]*offsets.Draw
	random, timeBased bool
	// seqRand says sizes come from seqRandDir, the sequential or the
	// random direction's (bs_is_seq_rand).
	seqRand    bool
	seqRandDir int
	// slotDir is the direction (Dirs' index) of an I/O in the write slot.
	slotDir int
}

// Region is where a Placer places I/Os and how.
type Region struct {
	// Start and Size are the region; Limit the target's end, past which
	// no I/O goes.
	Start, Size, Limit int64
	// Random and Trims are of the rw mode; TimeBased sends a sequential
	// direction at the end back to the start.
	Random, Trims, TimeBased bool
	// RandomMap is fio's random map (norandommap=0), for a uniform
	// distribution.
	RandomMap bool
	// Dist is random_distribution when not uniform; DistRand gives its
	// draws' streams, by direction for zoned draws, else one (dir 0).
	Dist     offsets.Distribution
	DistRand func(dir int) *rand.PCG
}

// NewPlacer places I/Os of sizes s in region r, its sizes drawn from rng.
func NewPlacer(s *Sizes, r Region, rng *rand.PCG) *Placer {
	p := &Placer{rng: rng, start: r.Start, end: r.Start + r.Size, limit: r.Limit, random: r.Random, timeBased: r.TimeBased, seqRand: s.SeqRand, slotDir: Write}
	if r.Trims {
		p.slotDir = Trim
	}
	if p.random {
		p.seqRandDir = Write
	}
	mapOK := p.random && r.RandomMap
	for d := range s.Dirs {
		sd := &p.draws[d]
		*sd = NewDraw(s.Dirs[d], s.Unaligned, p.random, r.Size)
		mapOK = mapOK && sd.Align == sd.Min // fio: any use of blockalign turns off the random map
	}
	if mapOK {
		if n := uint64(r.Size / s.Smallest()); n > 0 {
			p.amap = offsets.NewMap(n)
		}
	}
	if p.random && !r.Dist.Uniform() {
		p.setupDist(s, r)
	}
	p.Reset()
	return p
}

// setupDist is fio's random_distribution with these sizes: zipf, pareto
// and normal draw one of ceil(region / the smaller of the read and write
// smallest sizes) ranges for every direction (filesetup.c
// __init_rand_distribution), which each direction's alignment then
// multiplies; zoned and zoned_abs draw within each direction's own
// last_block.
func (p *Placer) setupDist(s *Sizes, r Region) {
	switch r.Dist.Kind {
	case offsets.Zoned, offsets.ZonedAbs:
		for dir := range p.draws {
			sd := &p.draws[dir]
			p.dist[dir] = offsets.NewDraw(r.Dist, sd.LastBlock, uint64(sd.Align), r.DistRand(dir))
		}
	default:
		rangeSize := min(s.Dirs[Read].Min, s.Dirs[Write].Min)
		n := uint64((r.Size + rangeSize - 1) / rangeSize)
		o := offsets.NewDraw(r.Dist, n, uint64(rangeSize), r.DistRand(0))
		p.dist = [3]*offsets.Draw{o, o, o}
	}
}

// Reset is fio's fio_file_reset: every position back at the start, the
// map cleared.
func (p *Placer) Reset() {
	p.pos = [3]int64{p.start, p.start, p.start}
	if p.amap != nil {
		p.amap.Reset()
	}
}

// WriteSlotMin is the smallest size of the write slot's direction.
func (p *Placer) WriteSlotMin() int64 { return p.draws[p.slotDir].Min }

func (p *Placer) dirOf(slot int) int {
	if slot == Read {
		return Read
	}
	return p.slotDir
}

// Place places an I/O of slot, its random offset drawn from dirRng, as
// fio's fill_io_u; ok false when fio's would fail. wrapped says it took a
// sequential direction back to the start.
func (p *Placer) Place(slot int, dirRng *rand.PCG) (off, size int64, wrapped, ok bool) {
	dir := p.dirOf(slot)
	d := &p.draws[dir]
	if p.random {
		b, ok := p.randomBlock(d, dir, slot, dirRng)
		if !ok {
			return 0, 0, false, false
		}
		off = p.start + int64(b)*d.Align
		if off >= p.end {
			return 0, 0, false, false // fio: offset >= io_size
		}
	} else {
		off = p.pos[dir]
		if off >= p.end {
			if !p.timeBased {
				return 0, 0, false, false
			}
			off, wrapped = p.start, true // fio's get_next_seq_offset goes back, and invalidates
		}
	}
	sd := d
	if p.seqRand {
		sd = &p.draws[p.seqRandDir]
	}
	size = sd.Size(p.rng, off, p.end)
	if size == 0 || off+size > p.limit {
		return 0, 0, wrapped, false
	}
	if p.amap != nil {
		unit := d.Min
		set := p.amap.SetRun(uint64((off-p.start)/unit), uint64((size+unit-1)/unit))
		size = min(size, int64(set)*unit)
	}
	p.pos[dir] = off + size
	return off, size, wrapped, true
}

// randomBlock is a random offset in units of d's alignment: fio's
// get_next_rand_offset with the map's next free block.
func (p *Placer) randomBlock(d *Draw, dir, slot int, dirRng *rand.PCG) (uint64, bool) {
	var b uint64
	if o := p.dist[dir]; o != nil {
		b = o.Next(slot)
	} else {
		b = offsets.Below(dirRng, d.LastBlock)
	}
	if p.amap != nil && p.amap.IsSet(b) {
		return p.amap.NextFree(b)
	}
	return b, true
}
