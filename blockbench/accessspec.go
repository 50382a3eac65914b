package blockbench

import (
	"fmt"
	"math"
	"time"

	"github.com/clydebench/clyde/result"
)

// MaxAccessLines is the most lines an Iometer access specification holds
// (MAX_ACCESS_SPECS in Iometer's IOAccess.h).
const MaxAccessLines = 100

// SectorSize is what an alignment of 0 means: Iometer 1.1.0 aligns such
// I/Os on sector boundaries (later development builds on the transfer
// size; files written by 1.1.0 mean sectors).
const SectorSize = int64(512)

// AccessSpec is an Iometer access specification: lines, each a share of the
// I/O a worker issues. A line is drawn for each burst with the probability
// of its weight; each I/O of the burst is then a read with the line's read
// share and starts at a random offset with its random share, or else right
// after the previous I/O (whatever line that came from), as Iometer's
// Dynamo does.
type AccessSpec struct {
	Name  string
	Lines []AccessLine
}

// AccessLine is one line of an access specification, with Iometer's fields.
type AccessLine struct {
	// Size is the transfer request size in bytes.
	Size int64
	// Weight is the line's "% of access"; the weights of a spec sum to 100.
	Weight int
	// ReadPct is the chance in percent that an I/O is a read, RandomPct
	// that it starts at a random offset.
	ReadPct   int
	RandomPct int
	// Delay is Iometer's transfer delay, waited before each burst; Burst
	// is the I/Os issued per draw of the line (0 counts as 1).
	Delay time.Duration
	Burst int
	// Align is the boundary every I/O starts on; 0 is SectorSize.
	Align int64
	// Reply is Iometer's reply size, which only network workers use; a
	// disk spec must leave it 0.
	Reply int64
}

func (l *AccessLine) align() int64 {
	if l.Align == 0 {
		return SectorSize
	}
	return l.Align
}

// maxSize is the largest transfer of the spec: what buffers are made for.
func (s *AccessSpec) maxSize() int64 {
	var m int64
	for i := range s.Lines {
		m = max(m, s.Lines[i].Size)
	}
	return m
}

// readShare is the spec's expected read percentage, rounded: the
// rwmixread a result reports for it.
func (s *AccessSpec) readShare() int {
	var sum int
	for _, l := range s.Lines {
		sum += l.Weight * l.ReadPct
	}
	return int(math.Round(float64(sum) / 100))
}

// rw is the fio mode that says what the spec does: whether it reads,
// writes or both, and whether any of it is random. It decides the safety
// rules (a spec that may write needs --destroy-data on existing data).
func (s *AccessSpec) rw() RW {
	var reads, writes, random bool
	for _, l := range s.Lines {
		if l.Weight == 0 {
			continue
		}
		reads = reads || l.ReadPct > 0
		writes = writes || l.ReadPct < 100
		random = random || l.RandomPct > 0
	}
	switch {
	case reads && writes && random:
		return RandRW
	case reads && writes:
		return ReadWrite
	case writes && random:
		return RandWrite
	case writes:
		return Write
	case random:
		return RandRead
	}
	return Read
}

// Apply makes w run the spec: its Access, and the RW mode, block size
// (the largest transfer) and rwmixread the result reports for it.
func (s *AccessSpec) Apply(w *Workload) {
	w.Access = s
	w.RW = s.rw()
	w.BS = s.maxSize()
	w.RWMixRead = s.readShare()
}

// validate holds the rules of a spec; direct adds direct I/O's alignment.
// Errors name the line, counting from 1.
func (s *AccessSpec) validate(direct bool) error {
	bad := func(i int, format string, args ...any) error {
		return result.Usagef("--access", "access specification %q line %d: %s", s.Name, i+1, fmt.Sprintf(format, args...))
	}
	if len(s.Lines) == 0 || len(s.Lines) > MaxAccessLines {
		return result.Usagef("--access", "access specification %q has %d lines; Iometer allows 1..%d", s.Name, len(s.Lines), MaxAccessLines)
	}
	sum := 0
	for i, l := range s.Lines {
		switch {
		case l.Size < 1 || l.Size > math.MaxInt32:
			return bad(i, "transfer size %d is outside 1..%d bytes", l.Size, math.MaxInt32)
		case l.Weight < 0 || l.Weight > 100:
			return bad(i, "%% of access %d is outside 0..100", l.Weight)
		case l.ReadPct < 0 || l.ReadPct > 100:
			return bad(i, "%% read %d is outside 0..100", l.ReadPct)
		case l.RandomPct < 0 || l.RandomPct > 100:
			return bad(i, "%% random %d is outside 0..100", l.RandomPct)
		case l.Delay < 0:
			return bad(i, "delay %v is negative", l.Delay)
		case l.Burst < 0:
			return bad(i, "burst %d is negative", l.Burst)
		case l.Align < 0 || l.Align > math.MaxInt32:
			return bad(i, "alignment %d is outside 0..%d bytes", l.Align, math.MaxInt32)
		case l.Reply != 0:
			return bad(i, "reply size %d is for network workers; clyde runs disk workers, so it must be 0", l.Reply)
		case direct && l.Size%DirectAlign != 0:
			return bad(i, "transfer size %d is not a multiple of %d, which direct I/O needs", l.Size, DirectAlign)
		case direct && l.align()%DirectAlign != 0:
			return bad(i, "alignment %d is not a multiple of %d, which direct I/O needs", l.Align, DirectAlign)
		}
		sum += l.Weight
	}
	if sum != 100 {
		return result.Usagef("--access", "access specification %q: the %% of access of its lines sum to %d, not 100", s.Name, sum)
	}
	return nil
}

// fits checks that every line has room in the region [off, off+size): a
// first aligned offset from which its transfer ends inside it.
func (s *AccessSpec) fits(off, size int64) error {
	for i := range s.Lines {
		l := &s.Lines[i]
		if l.Weight == 0 {
			continue
		}
		if base := alignUp(off, l.align()); base > off+size-l.Size {
			return result.Usagef("--size", "access specification %q line %d: a %d-byte transfer aligned on %d bytes does not fit in the region of %d bytes at offset %d",
				s.Name, i+1, l.Size, l.align(), size, off)
		}
	}
	return nil
}

func alignUp(v, a int64) int64 {
	if r := v % a; r != 0 {
		return v + a - r
	}
	return v
}

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

// accessPattern is one worker's draw of an access specification. Each
// worker has its own: it keeps the sequential position and the burst, and
// counts what it issued per line. Nothing in next allocates.
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

func newAccessPattern(wl *workload) *accessPattern {
	s := wl.Access
	p := &accessPattern{start: wl.Offset, end: wl.Offset + wl.Size, pos: wl.Offset, max: int(s.maxSize())}
	p.lines = make([]accessLineRun, len(s.Lines))
	p.only = -1
	p.counts = make([]result.BlockAccessLine, len(s.Lines))
	at := 0
	for i := range s.Lines {
		l := &s.Lines[i]
		a := l.align()
		base := alignUp(p.start, a)
		r := accessLineRun{size: int(l.Size), readPct: uint64(l.ReadPct), randomPct: uint64(l.RandomPct), align: a, base: base,
			delayNs: int64(l.Delay), burst: max(1, l.Burst)}
		if last := p.end - l.Size; last >= base {
			r.positions = uint64((last-base)/a) + 1
		}
		p.lines[i] = r
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

// chance is a draw that is true pct percent of the time; 0 and 100 need
// no draw.
func chance(w *worker, pct uint64) bool {
	switch pct {
	case 0:
		return false
	case 100:
		return true
	}
	return below(w.rng, 100) < pct
}

func (p *accessPattern) next(w *worker) (int, int64, int) {
	if p.left <= 0 {
		p.cur = p.only
		if p.cur < 0 {
			p.cur = int(p.grid[below(w.rng, 100)])
		}
		p.left = p.lines[p.cur].burst
		if d := p.lines[p.cur].delayNs; d > 0 {
			p.wait(w, d)
		}
	}
	p.left--
	l := &p.lines[p.cur]
	c := &p.counts[p.cur]
	dir := dirWrite
	if chance(w, l.readPct) {
		dir = dirRead
		c.Reads++
	}
	var off int64
	if chance(w, l.randomPct) {
		off = l.base + int64(below(w.rng, l.positions))*l.align
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
	return dir, off, l.size
}

func (p *accessPattern) maxSize(*worker) int { return p.max }

// wait is Iometer's transfer delay before a burst: the worker sleeps, but
// no longer than its deadline, and tells the engine that the clock it read
// before drawing the I/O is stale (so the delay is not counted as the I/O's
// latency). I/Os already in flight at a depth above 1 complete meanwhile
// and are timed when the worker reaps them after the delay.
func (p *accessPattern) wait(w *worker, d int64) {
	if w.deadline > 0 {
		d = min(d, max(0, w.deadline-w.now()))
	}
	time.Sleep(time.Duration(d))
	w.paused = true
}

// resetCounts starts the per-line counts over when the ramp ends.
func (p *accessPattern) resetCounts() {
	for i := range p.counts {
		c := &p.counts[i]
		c.IOs, c.Reads, c.Random = 0, 0, 0
	}
}

// accessLineCounts sums what the workers of a workload issued per line of
// its access specification; nil for fio's rw modes.
func accessLineCounts(workers []*worker) []result.BlockAccessLine {
	var out []result.BlockAccessLine
	for _, w := range workers {
		p, ok := w.pattern.(*accessPattern)
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
