package blockbench

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/clydebench/clyde/internal/offsets"
)

// sizedPattern is fio's rw modes with block sizes that vary (BlockSizes),
// one I/O at a time as fio 3.33's fill_io_u makes it (io_u.c):
//   - the direction, drawn by rwmixread as fioPattern's;
//   - the offset: a sequential one where the direction's last I/O ended
//     (fio's last_pos, one per direction); a random one a multiple of the
//     direction's alignment below last_block (the region, less what the
//     direction's smallest size exceeds its alignment by), moved on to
//     the next free block when the random map has its block used;
//   - the size: fio's get_next_buflen (sizeDraw.size);
//   - with the random map, the blocks of the smallest size of the I/O's
//     direction it covers marked used, and the I/O cut where a used one
//     starts (mark_random_map; the map has a bit per block of the
//     smallest size of all three directions, so a direction with larger
//     blocks indexes it as fio's does, in its own units).
//
// A pass ends, as fio's do_io, when no I/O can be placed: a sequential
// direction at the end of the region, a random map with no free block or
// one that leads past the region, a direction's smallest size not fitting
// before the end. loops= runs that many passes, each with the map cleared
// and the positions back at the start, until the job's I/Os add up to its
// size times loops (fio's io_issue_bytes_exceeded); with io_size=, that
// times loops, in as many passes as it takes. An engine that queues
// (fio's FIO_Q_QUEUED: libaio, io_uring, posixaio, null above iodepth 1)
// also ends a pass once its own I/Os add up to the size, as do_io counts
// bytes_issued for those alone: rw=rw with loops=2 on psync runs a pass
// until one direction reaches the end, on libaio until the size. A
// time-based job starts a new pass (a sequential direction at the end goes
// back to the start on its own) until its runtime is over. The job's I/O
// count is not known in advance, so the pattern draws one I/O ahead and
// marks the last one for the engines (worker.remaining).
type sizedPattern struct {
	draws [3]sizeDraw
	// rng draws the sizes (fio's bsrange_state), a stream of its own.
	rng *rand.PCG
	// start and end are the region, limit the target's end (fio's
	// real_file_size), past which no I/O goes.
	start, end, limit int64
	pos               [3]int64
	amap              *blockMap
	dist              [3]*offsetDraw
	random, timeBased bool
	// seqRand says sizes come from seqRandDir, the sequential or the
	// random direction's (bs_is_seq_rand).
	seqRand    bool
	seqRandDir int
	// slotDir is the direction (Dirs' index) of an I/O counted in the
	// write slot: a write, or a trim for the trim modes.
	slotDir int
	passes
	dropOnPass bool
	// The next I/O, drawn ahead (nDir, nOff, nSize): have says it is
	// there, nDrop that the cache is dropped before it (a new pass);
	// wrapped says the draw just made took a sequential direction back
	// to the start.
	have           bool
	nDir, nSize    int
	nOff           int64
	nDrop, wrapped bool
	// max is the largest size: what buffers are made for.
	max int
}

// sizeDraw is one direction's sizes and offsets as a worker draws them.
type sizeDraw struct {
	min, max, align int64
	// split is bssplit's sizes in fio's order; nil for a range.
	split []splitStep
	// lastb is fio's last_block: random offsets are align times a
	// number below it.
	lastb             uint64
	varies, unaligned bool
}

// splitStep is one size of a split and the draws that take it: r below
// below, fio's r / perc <= FRAND32_MAX / 100 with perc the shares so far.
type splitStep struct {
	size  int64
	below uint64
}

// splitBelow is the draws r with r/cum <= FRAND32_MAX/100: r <
// (FRAND32_MAX/100 + 1) * cum, all of them once cum reaches 100.
func splitBelow(cum uint64) uint64 {
	if cum >= 100 {
		return 1 << 32
	}
	return (frand32Max/100 + 1) * cum
}

// maxSizeDraws bounds get_next_buflen's loop, which draws again while the
// size does not fit before the end of the region: fio spins for ever on a
// split whose sizes with a share never fit where its smallest (with none)
// would; clyde ends the pass.
const maxSizeDraws = 1 << 20

func newSizedPattern(w *worker) *sizedPattern {
	spec := w.spec
	s := spec.Sizes
	p := &sizedPattern{
		rng: newRand(spec.Seed^0xb5b5, w.index+1), start: spec.Offset, end: spec.Offset + spec.Size,
		random: spec.RW.Random(), timeBased: spec.TimeBased, seqRand: s.SeqRand, slotDir: SizeWrite,
		max: int(spec.BS),
	}
	p.passes = newPasses(spec, spec.Size)
	p.limit = math.MaxInt64 // fio's null: its file has no end (real_file_size -1)
	if spec.target != nil && !spec.Diskless() {
		p.limit = max(p.end, spec.target.Size)
	}
	if spec.RW.Trims() {
		p.slotDir = SizeTrim
	}
	if p.random {
		p.seqRandDir = SizeWrite
	}
	p.dropOnPass = spec.Invalidate && !spec.Direct && (spec.TimeBased || spec.Loops > 1) && CanAdviseAccess && !spec.Diskless()
	mapOK := p.random && spec.RandomMap && spec.Distribution.Uniform()
	rwMin := s.Dirs[SizeRead].Min
	for d := range s.Dirs {
		ds := &s.Dirs[d]
		rwMin = min(rwMin, ds.Min)
		sd := &p.draws[d]
		sd.min, sd.max, sd.align, sd.varies, sd.unaligned = ds.Min, ds.Max, ds.Align, ds.Min != ds.Max, s.Unaligned
		if sd.align == 0 || !p.random {
			sd.align = ds.Min // fio: ba is min_bs but for random I/O
		}
		mapOK = mapOK && sd.align == ds.Min // fio: any use of blockalign turns off the random map
		span := spec.Size
		if ds.Min > sd.align {
			span -= ds.Min - sd.align
		}
		sd.lastb = uint64(span / sd.align)
		var cum uint64
		for _, e := range resolvedSplit(ds.Split) {
			if e.Pct == 0 {
				continue // fio skips a size whose share came to 0
			}
			cum += uint64(uint32(e.Pct))
			sd.split = append(sd.split, splitStep{size: e.Size, below: splitBelow(cum)})
		}
		if len(ds.Split) > 0 && sd.split == nil {
			sd.split = []splitStep{} // every share 0: no size, as fio's loop finds none
		}
	}
	if mapOK {
		if n := uint64(spec.Size / rwMin); n > 0 {
			p.amap = offsets.NewMap(n)
		}
	}
	if p.random && !spec.Distribution.Uniform() {
		p.setupDist(w)
	}
	p.resetPass()
	return p
}

// setupDist is fio's random_distribution with these sizes: zipf, pareto
// and normal draw one of ceil(region / the smaller of the read and write
// smallest sizes) ranges for every direction (filesetup.c
// __init_rand_distribution), which each direction's alignment then
// multiplies; zoned and zoned_abs draw within each direction's own
// last_block.
func (p *sizedPattern) setupDist(w *worker) {
	spec := w.spec
	d := spec.Distribution
	switch d.Kind {
	case DistZoned, DistZonedAbs:
		for dir := range p.draws {
			sd := &p.draws[dir]
			p.dist[dir] = offsets.NewDraw(d, sd.lastb, uint64(sd.align), newRand(spec.Seed^0xd157+uint64(dir)<<32, w.index+1))
		}
	default:
		rangeSize := min(spec.Sizes.Dirs[SizeRead].Min, spec.Sizes.Dirs[SizeWrite].Min)
		n := uint64((spec.Size + rangeSize - 1) / rangeSize)
		o := offsets.NewDraw(d, n, uint64(rangeSize), newRand(spec.Seed^0xd157, w.index+1))
		p.dist = [3]*offsetDraw{o, o, o}
	}
}

func (p *sizedPattern) maxSize(*worker) int { return p.max }

// restart gives the measured part of a job its whole bytes and passes at
// the end of its ramp, as startMeasuring gives fioPattern's its whole I/O
// count: the ramp's I/Os do not count (the I/O drawn ahead does).
func (p *sizedPattern) restart() {
	if p.total == 0 {
		return
	}
	p.issued, p.passesLeft = 0, p.loops-1
	if p.have {
		p.issued = int64(p.nSize)
	}
}

// resetPass is fio's fio_file_reset: every position back at the start,
// the map cleared.
func (p *sizedPattern) resetPass() {
	p.pos = [3]int64{p.start, p.start, p.start}
	p.passBytes = 0
	if p.amap != nil {
		p.amap.Reset()
	}
}

func (p *sizedPattern) next(w *worker) (int, int64, int) {
	if !p.have && !p.pull(w) {
		// Asked past the job's last I/O (a ramp that ended the job,
		// whose restart found nothing left): a pass of its own.
		p.restart()
		p.resetPass()
		if !p.pull(w) {
			w.remaining = min(w.remaining, 1)
			return w.pickDir(), p.start, int(p.draws[p.slotDir].min) // validation leaves no region too small
		}
	}
	dir, off, size := p.nDir, p.nOff, p.nSize
	if p.nDrop {
		w.dropForPass()
	}
	p.have = false
	if !p.pull(w) {
		w.remaining = min(w.remaining, 1) // this one is the last
	}
	return dir, off, size
}

// issueQueues says fio's engine of the workload returns FIO_Q_QUEUED for
// a read or a write, so that its do_io counts the pass's bytes.
// passes is fio's control of a size-based job's passes.
type passes struct {
	// budget is a pass's bytes (fio's size, for an engine that queues;
	// 0: none), passBytes those issued in this pass; total is the job's
	// bytes (size times loops; 0 for time_based: none), issued those
	// issued; passesLeft the passes after this one (-1: no end).
	budget, passBytes int64
	total, issued     int64
	passesLeft, loops int
	// ioSize is fio's io_size (0: none): after loops passes, more while
	// the job's bytes fall short of it by its largest size or more.
	ioSize int64
}

// newPasses sets the passes of a job whose pass is size bytes (its size=,
// or a file set's share of it); a time-based job's have no end.
func newPasses(spec *workload, size int64) passes {
	p := passes{passesLeft: -1}
	if spec.TimeBased {
		return p
	}
	p.loops = max(1, spec.Loops)
	p.total, p.passesLeft = size*int64(p.loops), p.loops-1
	if issueQueues(spec) {
		p.budget = size
	}
	if n := spec.Region.ioBytes(size); n > 0 {
		// fio's io_size: the job's bytes, passes until they are done
		// (region.go).
		p.ioSize, p.total = n, n*int64(p.loops)
		if p.budget > 0 && spec.RW.Random() && spec.RW.Writes() && !spec.RandomMap {
			p.budget = max(p.budget, n) // do_io: random overwrites up to io_size
		}
	}
	return p
}

func issueQueues(w *workload) bool {
	switch w.engine.name() {
	case EnginePsync, EngineMmap:
		return false
	case EngineNull:
		return w.depth > 1 // fio's null is FIO_SYNCIO at iodepth 1
	}
	return true
}

// pull draws the next I/O ahead; false when the job has none left.
func (p *sizedPattern) pull(w *worker) bool {
	if p.total > 0 && p.issued >= p.total {
		return false
	}
	drop := false
	for range 2 {
		p.wrapped = false
		if (p.budget == 0 || p.passBytes < p.budget) && p.draw(w) {
			p.have, p.nDrop = true, drop || (p.wrapped && p.dropOnPass)
			return true
		}
		// The pass is over: its bytes are issued, or no I/O fits.
		switch {
		case p.passesLeft > 0:
			p.passesLeft--
		case p.passesLeft == 0 && (p.ioSize == 0 || p.ioSize-p.issued < int64(p.max)):
			return false // fio's keep_running: loops done, io_size too
		}
		p.resetPass()
		drop = p.dropOnPass
	}
	return false
}

// draw places one I/O into the lookahead, as fio's fill_io_u; false when
// fio's would fail.
func (p *sizedPattern) draw(w *worker) bool {
	slot := w.pickDir()
	dir := SizeRead
	if slot == dirWrite {
		dir = p.slotDir
	}
	d := &p.draws[dir]
	var off int64
	if p.random {
		b, ok := p.randomBlock(w, d, dir, slot)
		if !ok {
			return false
		}
		off = p.start + int64(b)*d.align
		if off >= p.end {
			return false // fio: offset >= io_size
		}
	} else {
		off = p.pos[dir]
		if off >= p.end {
			if !p.timeBased {
				return false
			}
			off, p.wrapped = p.start, true // fio's get_next_seq_offset goes back, and invalidates
		}
	}
	sd := d
	if p.seqRand {
		sd = &p.draws[p.seqRandDir]
	}
	size := p.size(sd, off)
	if size == 0 || off+size > p.limit {
		return false
	}
	if p.amap != nil {
		unit := d.min
		set := p.amap.SetRun(uint64((off-p.start)/unit), uint64((size+unit-1)/unit))
		size = min(size, int64(set)*unit)
	}
	p.pos[dir] = off + size
	p.passBytes += size
	p.issued += size
	p.nDir, p.nOff, p.nSize = slot, off, int(size)
	return true
}

// randomBlock is a random offset in units of d's alignment: fio's
// get_next_rand_offset with the map's next free block.
func (p *sizedPattern) randomBlock(w *worker, d *sizeDraw, dir, slot int) (uint64, bool) {
	var b uint64
	if o := p.dist[dir]; o != nil {
		b = o.Next(slot)
	} else {
		b = below(w.rng, d.lastb)
	}
	if p.amap != nil && p.amap.IsSet(b) {
		return p.amap.NextFree(b)
	}
	return b, true
}

// size is fio's get_next_buflen for an I/O at off: its direction's one
// size, or a size drawn from its range or split that fits before the end
// of the region (0 when even the smallest does not), cut to a multiple of
// the smallest unless unaligned, and to the largest.
func (p *sizedPattern) size(d *sizeDraw, off int64) int64 {
	if !d.varies {
		return d.min
	}
	if off+d.min > p.end {
		return 0
	}
	for range maxSizeDraws {
		r := uint64(uint32(p.rng.Uint64() >> 32))
		var b int64
		if d.split == nil {
			b = d.min + int64(float64(d.max)*(float64(r)/(frand32Max+1.0)))
		} else {
			for i := range d.split {
				s := &d.split[i]
				b = s.size
				if r < s.below && off+b <= p.end {
					break
				}
			}
		}
		if !d.unaligned {
			b -= b % d.min
		}
		b = min(b, d.max)
		if off+b <= p.end {
			return b
		}
	}
	return 0
}

// dropForPass drops the file's cached pages before the first I/O of a
// pass, as fio invalidates a file it reopens for one.
func (w *worker) dropForPass() {
	if err := dropCache(w.h); err != nil {
		w.fail(fmt.Errorf("invalidate after a pass: %w", err))
	}
}
