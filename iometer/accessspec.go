package iometer

import (
	"fmt"
	"math"
	"time"

	"github.com/clydebench/clyde/blockbench"
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
func (s *AccessSpec) rw() blockbench.RW {
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
		return blockbench.RandRW
	case reads && writes:
		return blockbench.ReadWrite
	case writes && random:
		return blockbench.RandWrite
	case writes:
		return blockbench.Write
	case random:
		return blockbench.RandRead
	}
	return blockbench.Read
}

// Apply makes w run the spec: its Access, the RW mode, block size (the
// largest transfer) and rwmixread the result reports for it, and the
// spec's name among the options the result echoes (access_spec).
func (s *AccessSpec) Apply(w *blockbench.Workload) {
	w.Access = s
	w.RW = s.rw()
	w.BS = s.maxSize()
	w.RWMixRead = s.readShare()
	opts := make(map[string]string, len(w.Options)+1)
	for k, v := range w.Options {
		opts[k] = v
	}
	opts["access_spec"] = s.Name
	w.Options = opts
}

// Check is the spec's rules on w (blockbench.Pattern): the spec's own,
// direct I/O's alignment when w is direct, and w's rw and bs describing
// the spec, as Apply sets them.
func (s *AccessSpec) Check(w *blockbench.Workload) error {
	if err := s.validate(w.Direct); err != nil {
		return err
	}
	if w.RW != s.rw() || w.BS != s.maxSize() {
		return usagef("access specifications", "workload %s: rw %s and bs %d do not describe access specification %q; set them with AccessSpec.Apply",
			w.Name, w.RW, w.BS, s.Name)
	}
	return nil
}

// CheckRegion is fits (blockbench.Pattern).
func (s *AccessSpec) CheckRegion(offset, size int64) error { return s.fits(offset, size) }

// NewDrawer is one worker's draw of the spec over the region
// (blockbench.Pattern).
func (s *AccessSpec) NewDrawer(offset, size int64) blockbench.Drawer {
	return newAccessPattern(s, offset, size)
}

// Summarize sums what the workers issued per line of the spec into the
// job's access lines (blockbench.Pattern).
func (s *AccessSpec) Summarize(job *result.BlockJob, drawers []blockbench.Drawer) {
	job.AccessLines = accessLineCounts(drawers)
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
		case direct && l.Size%blockbench.DirectAlign != 0:
			return bad(i, "transfer size %d is not a multiple of %d, which direct I/O needs", l.Size, blockbench.DirectAlign)
		case direct && l.align()%blockbench.DirectAlign != 0:
			return bad(i, "alignment %d is not a multiple of %d, which direct I/O needs", l.Align, blockbench.DirectAlign)
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
