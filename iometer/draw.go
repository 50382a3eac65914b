package iometer

import (
	"time"

	"github.com/clydebench/clyde/blockbench"
	"github.com/clydebench/clyde/result"
)

// accessLineRun is a line as a worker draws it: sizes and offsets ready.
type accessLineRun struct {
	size      int
	readPct   uint64
	randomPct uint64
	align     int64
	base      int64  // first aligned offset in the region
	positions uint64 // aligned offsets a transfer fits at, from base
	delayNs   int64
	burst     int
}

// accessPattern is one worker's draw of an access specification
// (blockbench.Drawer). Each worker has its own: it keeps the sequential
// position and the burst, and counts what it issued per line. Nothing in
// Next allocates.
type accessPattern struct {
	grid [100]uint8 // the line of each percent of access
	// only is the line that has all the weight, -1 when several share it:
	// then no draw picks the line.
	only  int
	lines []accessLineRun
	max   int
	start int64
	end   int64
	cur   int
	left  int   // I/Os left in the burst
	pos   int64 // end of the previous I/O
	// counts are what this worker issued per line since it started
	// measuring.
	counts []result.BlockAccessLine
}

func newAccessPattern(s *AccessSpec, offset, size int64) *accessPattern {
	p := &accessPattern{start: offset, end: offset + size, pos: offset, max: int(s.maxSize())}
	p.lines = make([]accessLineRun, len(s.Lines))
	p.only = -1
	p.counts = make([]result.BlockAccessLine, len(s.Lines))
	at := 0
	for i := range s.Lines {
		l := &s.Lines[i]
		p.lines[i] = p.lineRun(l)
		for k := 0; k < l.Weight && at < len(p.grid); k++ {
			p.grid[at] = uint8(i)
			at++
		}
		p.counts[i] = result.BlockAccessLine{SizeBytes: l.Size, Weight: l.Weight, ReadPct: l.ReadPct, RandomPct: l.RandomPct}
		if l.Weight == 100 {
			p.only = i
		}
	}
	return p
}

// lineRun is line l ready to draw in the pattern's region.
func (p *accessPattern) lineRun(l *AccessLine) accessLineRun {
	a := l.align()
	base := alignUp(p.start, a)
	r := accessLineRun{size: int(l.Size), readPct: uint64(l.ReadPct), randomPct: uint64(l.RandomPct), align: a, base: base,
		delayNs: int64(l.Delay), burst: max(1, l.Burst)}
	if last := p.end - l.Size; last >= base {
		r.positions = uint64((last-base)/a) + 1
	}
	return r
}

// chance is a draw that is true pct percent of the time; 0 and 100 need
// no draw.
func chance(src *blockbench.DrawSource, pct uint64) bool {
	switch pct {
	case 0:
		return false
	case 100:
		return true
	}
	return src.Below(100) < pct
}

// Next draws a line for each burst (waiting its delay first), then each
// I/O of the burst's direction and offset.
func (p *accessPattern) Next(src *blockbench.DrawSource) (bool, int64, int) {
	if p.left <= 0 {
		p.cur = p.only
		if p.cur < 0 {
			p.cur = int(p.grid[src.Below(100)])
		}
		p.left = p.lines[p.cur].burst
		if d := p.lines[p.cur].delayNs; d > 0 {
			src.Wait(time.Duration(d))
		}
	}
	p.left--
	l := &p.lines[p.cur]
	c := &p.counts[p.cur]
	write := true
	if chance(src, l.readPct) {
		write = false
		c.Reads++
	}
	var off int64
	if chance(src, l.randomPct) {
		off = l.base + int64(src.Below(l.positions))*l.align
		c.Random++
	} else {
		// Sequential: on from where the previous I/O ended, aligned up,
		// back to the start of the region when the transfer would pass
		// its end (Iometer's TargetDisk::Seek).
		off = alignUp(p.pos, l.align)
		if off+int64(l.size) > p.end {
			off = l.base
		}
	}
	c.IOs++
	p.pos = off + int64(l.size)
	return write, off, l.size
}

// MaxSize is the spec's largest transfer.
func (p *accessPattern) MaxSize() int { return p.max }

// Reset starts the per-line counts over when the ramp ends.
func (p *accessPattern) Reset() {
	for i := range p.counts {
		c := &p.counts[i]
		c.IOs, c.Reads, c.Random = 0, 0, 0
	}
}

// accessLineCounts sums what the drawers of a workload's workers issued
// per line of its access specification.
func accessLineCounts(drawers []blockbench.Drawer) []result.BlockAccessLine {
	var out []result.BlockAccessLine
	for _, d := range drawers {
		p, ok := d.(*accessPattern)
		if !ok {
			return nil
		}
		if out == nil {
			out = append(out, p.counts...)
			continue
		}
		for i := range out {
			out[i].IOs += p.counts[i].IOs
			out[i].Reads += p.counts[i].Reads
			out[i].Random += p.counts[i].Random
		}
	}
	return out
}
