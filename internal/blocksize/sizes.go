// Package blocksize holds fio's block sizes as plain values, with no
// knowledge of jobs or workers: a size per direction (bs=R,W,T),
// bsrange, bssplit, blockalign, bs_unaligned and bs_is_seq_rand, the
// rules fio holds them to, and the draw of one I/O's size (Draw, fio's
// get_next_buflen). A benchmark's planner turns an rw mode into a Mode
// to ask which directions' sizes it uses; its worker owns a Draw per
// direction and draws from it once per I/O.
package blocksize

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/clydebench/clyde/result"
)

// The directions of Sizes.Dirs, fio's DDIR_READ, DDIR_WRITE and
// DDIR_TRIM.
const (
	Read  = 0
	Write = 1
	Trim  = 2
)

// MaxSplit is fio's BSSPLIT_MAX: the most sizes one direction of a
// bssplit takes (fio stops reading the list there).
const MaxSplit = 64

// NoPct is the Pct of a bssplit entry written without a percentage (or
// with 0, which fio reads the same way).
const NoPct = -1

// Sizes are a workload's I/O sizes per direction, as fio keeps them
// after its options are read: min_bs, max_bs, bssplit and ba per
// direction, bs_unaligned and bs_is_seq_rand.
type Sizes struct {
	// Dirs are the sizes of reads, writes and trims (Read, Write, Trim).
	// With SeqRand an I/O's size comes from Dirs[Read] when it is
	// sequential and Dirs[Write] when it is random, as fio's
	// bs_is_seq_rand; its offset's alignment and the random map still
	// follow its direction.
	Dirs [3]Dir
	// Unaligned keeps a drawn size as drawn (fio's bs_unaligned); else it
	// is cut to a multiple of its direction's Min.
	Unaligned bool
	SeqRand   bool
}

// Dir is one direction's sizes. Min == Max is one size (fio's bs=).
// Otherwise each I/O draws its size: from Split when it has entries (fio's
// bssplit), else Min plus Max times a uniform draw (fio's bsrange, whose
// draw makes Max the most frequent size when Min does not divide it); the
// size is then cut to a multiple of Min (unless Sizes.Unaligned) and to
// Max, and drawn again while it does not fit before the end of the
// region.
type Dir struct {
	Min, Max int64
	// Split is the bssplit list as written: sizes and their shares in
	// percent (NoPct for an entry without one, which shares what the
	// others leave, as fio's bssplit_ddir).
	Split []Share
	// Align is where a random I/O may start, a multiple of it from the
	// region's start (fio's blockalign); 0 is Min. Sequential I/O starts
	// where the last one ended.
	Align int64
}

// Share is one entry of a bssplit list.
type Share struct {
	Size int64
	Pct  int
}

// Mode is what of fio's rw mode the sizes depend on.
type Mode struct {
	// Random says the mode's offsets are random.
	Random bool
	// Dirs are the directions the mode issues (Read, Write, Trim), as
	// its sizes are taken without bs_is_seq_rand.
	Dirs []int
}

// Fixed returns the sizes of one size bs in every direction.
func Fixed(bs int64) Sizes {
	d := Dir{Min: bs, Max: bs}
	return Sizes{Dirs: [3]Dir{d, d, d}}
}

var dirNames = [3]string{"read", "write", "trim"}

// FixedSize is the one size every I/O of mode m has, at multiples of it,
// when the sizes come down to that: then nothing of this package costs an
// I/O anything. A sequential mode needs its own directions to be of one
// size; a random one every direction, since fio sizes its random map by
// the smallest size of all three and turns the map off at any blockalign
// other than a direction's size.
func (s *Sizes) FixedSize(m Mode) (int64, bool) {
	dirs := s.Used(m)
	if m.Random {
		dirs = []int{Read, Write, Trim}
	}
	bs := s.Dirs[dirs[0]].Min
	for _, d := range dirs {
		ds := &s.Dirs[d]
		if ds.Min != bs || ds.Max != bs || (m.Random && ds.Align != 0 && ds.Align != bs) {
			return 0, false
		}
	}
	return bs, true
}

// Used are the directions whose sizes mode m draws from (Dirs' indexes):
// with SeqRand the sequential or the random one.
func (s *Sizes) Used(m Mode) []int {
	switch {
	case s.SeqRand && m.Random:
		return []int{Write}
	case s.SeqRand:
		return []int{Read}
	}
	return m.Dirs
}

// Largest is the largest size mode m issues: what buffers are made for.
func (s *Sizes) Largest(m Mode) int64 {
	var l int64
	for _, d := range s.Used(m) {
		l = max(l, s.Dirs[d].Max)
	}
	return l
}

// Smallest is fio's td_min_bs, the smallest size of any direction: the
// smallest region fio runs the sizes in.
func (s *Sizes) Smallest() int64 {
	return min(s.Dirs[Read].Min, s.Dirs[Write].Min, s.Dirs[Trim].Min)
}

// Validate holds each direction to fio's rules for its sizes
// (bssplit_ddir's percentages, fixup_options' sizes) and to what one I/O
// may be.
func (s *Sizes) Validate() error {
	for d := range s.Dirs {
		if err := s.Dirs[d].validate(dirNames[d]); err != nil {
			return err
		}
	}
	return nil
}

func (ds *Dir) validate(dir string) error {
	switch {
	case ds.Min <= 0 || ds.Max < ds.Min:
		return result.Usagef("--bs", "%s block sizes %d-%d: give a smallest size above 0 and a largest no smaller", dir, ds.Min, ds.Max)
	case ds.Max > math.MaxInt32:
		return result.Usagef("--bs", "%s block size %d is larger than one I/O clyde issues, %d bytes", dir, ds.Max, math.MaxInt32)
	case ds.Align < 0 || ds.Align > math.MaxInt32:
		return result.Usagef("--blockalign", "%s alignment %d is outside 0..%d bytes", dir, ds.Align, math.MaxInt32)
	case len(ds.Split) > MaxSplit:
		return result.Usagef("--bssplit", "%s: %d sizes; fio takes at most %d", dir, len(ds.Split), MaxSplit)
	}
	return splitError(dir, ds.Split)
}

// splitError is what is wrong with the entries of a bssplit list, or nil.
func splitError(dir string, split []Share) error {
	given, missing := 0, 0
	for _, e := range split {
		switch {
		case e.Size <= 0 || e.Size > math.MaxInt32:
			return result.Usagef("--bssplit", "%s block size %d is outside 1..%d bytes", dir, e.Size, math.MaxInt32)
		case e.Pct == NoPct:
			missing++
		case e.Pct < 1 || e.Pct > 100:
			return result.Usagef("--bssplit", "%s: %d%% is outside 1..100 (write an entry without a share as SIZE or SIZE/)", dir, e.Pct)
		default:
			given += e.Pct
		}
	}
	if given > 100 && missing > 1 {
		return result.Usagef("--bssplit", "%s: the percentages add up to %d, more than 100 (fio: bssplit percentages add to more than 100%%)", dir, given)
	}
	return nil
}

// SplitError says what is wrong with one direction of a bssplit list, or
// nil: the rules Validate applies, for a job-file reader to report at the
// option's line.
func SplitError(dir int, split []Share) error {
	ds := Dir{Min: 1, Max: 1, Split: split}
	return ds.validate(dirNames[dir])
}

// Misaligned finds a size or alignment mode m may use that is not a
// multiple of a (the sizes a draw cuts to multiples of Min are, when Min
// and Max are): ok false and what it is.
func (s *Sizes) Misaligned(m Mode, a int64) (what string, ok bool) {
	for _, d := range s.Used(m) {
		ds := &s.Dirs[d]
		switch {
		case ds.Min%a != 0 || ds.Max%a != 0:
			return fmt.Sprintf("%s block size %d-%d", dirNames[d], ds.Min, ds.Max), false
		case ds.Min != ds.Max && s.Unaligned:
			return fmt.Sprintf("a %s size drawn with bs_unaligned", dirNames[d]), false
		}
	}
	if m.Random {
		for d := range s.Dirs {
			if al := s.Dirs[d].Align; al%a != 0 {
				return fmt.Sprintf("%s blockalign %d", dirNames[d], al), false
			}
		}
	}
	return "", true
}

// Resolve is one direction's bssplit as fio keeps it: the entries
// without a share given what the others leave (in fio's unsigned
// arithmetic, so a list whose shares pass 100 with one entry without a
// share gives that entry a share past any draw), sorted by share, the
// order a draw tries them in (a stable sort, as glibc's qsort is on such
// a list).
func Resolve(split []Share) []Share {
	if len(split) == 0 {
		return nil
	}
	var perc, missing uint32
	for _, e := range split {
		if e.Pct == NoPct {
			missing++
		} else {
			perc += uint32(e.Pct)
		}
	}
	if missing == 1 && len(split) == 1 {
		perc = 100
	}
	out := make([]Share, len(split))
	for i, e := range split {
		p := uint32(e.Pct)
		if e.Pct == NoPct {
			p = (100 - perc) / missing
		}
		out[i] = Share{Size: e.Size, Pct: int(p)}
	}
	// fio's bs_cmp compares the shares as ints: one past 2^31 sorts first.
	slices.SortStableFunc(out, func(a, b Share) int { return int(int32(uint32(a.Pct))) - int(int32(uint32(b.Pct))) })
	return out
}

// Config is the sizes as the result records them.
func (s *Sizes) Config() *result.BlockSizes {
	dir := func(d int) result.BlockSizeDir {
		ds := &s.Dirs[d]
		out := result.BlockSizeDir{MinBytes: ds.Min, MaxBytes: ds.Max, AlignBytes: ds.Align}
		if out.AlignBytes == 0 {
			out.AlignBytes = ds.Min
		}
		if ds.Min != ds.Max {
			for _, e := range Resolve(ds.Split) {
				out.Split = append(out.Split, result.BlockSizeShare{BSBytes: e.Size, Pct: int64(uint32(e.Pct))})
			}
		}
		return out
	}
	return &result.BlockSizes{Read: dir(Read), Write: dir(Write), Trim: dir(Trim), Unaligned: s.Unaligned, SeqRand: s.SeqRand}
}

// String is the sizes in fio's words, as its text report heads a job:
// "(R) 4096-65536, (W) 8192, (T) 4096".
func (s *Sizes) String() string {
	var b strings.Builder
	for d, ds := range s.Dirs {
		if d > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "(%s) %d", strings.ToUpper(dirNames[d][:1]), ds.Min)
		if ds.Max != ds.Min {
			b.WriteString("-" + strconv.FormatInt(ds.Max, 10))
		}
	}
	return b.String()
}

// Grid is where a random offset of this direction may go in span bytes:
// multiples of bs below blocks of them, fio's ba and last_block (the span
// less what the smallest size exceeds the alignment by).
func (ds *Dir) Grid(span int64) (bs, blocks int64) {
	bs = ds.Align
	if bs == 0 {
		bs = ds.Min
	}
	if ds.Min > bs {
		span -= ds.Min - bs
	}
	return bs, span / bs
}

// VerifyInterval is fio's verify_interval with verify= and no
// verify_interval= for writes of these sizes: the smallest when it
// divides the largest and else the greatest common divisor of the two
// (init.c fixup_options). Every write is a whole number of intervals.
func (ds *Dir) VerifyInterval() int64 {
	if ds.Max%ds.Min == 0 {
		return ds.Min
	}
	a, b := ds.Min, ds.Max
	for b != 0 {
		a, b = b, a%b
	}
	return a
}
