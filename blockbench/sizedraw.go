package blockbench

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/clydebench/clyde/internal/blocksize"
)

// sizedPattern is fio's rw modes with block sizes that vary (BlockSizes),
// one I/O at a time as fio 3.33's fill_io_u makes it: the direction drawn
// by rwmixread as fioPattern's, the offset and size placed by
// blocksize.Placer.
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
	place *blocksize.Placer
	start int64
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

func newSizedPattern(w *worker) *sizedPattern {
	spec := w.spec
	limit := int64(math.MaxInt64) // fio's null: its file has no end (real_file_size -1)
	if spec.target != nil && !spec.Diskless() {
		limit = max(spec.Offset+spec.Size, spec.target.Size)
	}
	r := blocksize.Region{
		Start: spec.Offset, Size: spec.Size, Limit: limit,
		Random: spec.RW.Random(), Trims: spec.RW.Trims(), TimeBased: spec.TimeBased,
		RandomMap: spec.RandomMap && spec.Distribution.Uniform(), Dist: spec.Distribution,
		DistRand: func(dir int) *rand.PCG { return newRand(spec.Seed^0xd157+uint64(dir)<<32, w.index+1) },
	}
	p := &sizedPattern{
		place: blocksize.NewPlacer(spec.Sizes.pure(), r, newRand(spec.Seed^0xb5b5, w.index+1)),
		start: spec.Offset, max: int(spec.BS),
	}
	p.passes = newPasses(spec, spec.Size)
	p.dropOnPass = spec.Invalidate && !spec.Direct && (spec.TimeBased || spec.Loops > 1) && CanAdviseAccess && !spec.Diskless()
	p.resetPass()
	return p
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
	p.place.Reset()
	p.passBytes = 0
}

func (p *sizedPattern) next(w *worker) (int, int64, int) {
	if !p.have && !p.pull(w) {
		// Asked past the job's last I/O (a ramp that ended the job,
		// whose restart found nothing left): a pass of its own.
		p.restart()
		p.resetPass()
		if !p.pull(w) {
			w.remaining = min(w.remaining, 1)
			return w.pickDir(), p.start, int(p.place.WriteSlotMin()) // validation leaves no region too small
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
	off, size, wrapped, ok := p.place.Place(slot, w.rng)
	if !ok {
		return false
	}
	p.wrapped = wrapped
	p.passBytes += size
	p.issued += size
	p.nDir, p.nOff, p.nSize = slot, off, int(size)
	return true
}

// dropForPass drops the file's cached pages before the first I/O of a
// pass, as fio invalidates a file it reopens for one.
func (w *worker) dropForPass() {
	if err := dropCache(w.h); err != nil {
		w.fail(fmt.Errorf("invalidate after a pass: %w", err))
	}
}
