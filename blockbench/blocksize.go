package blockbench

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/clydebench/clyde/result"
)

// Block sizes that vary: fio's bs=R,W,T (a size per direction), bsrange,
// bssplit, blockalign, bs_unaligned and bs_is_seq_rand. A workload whose
// I/Os are all one size at multiples of it keeps Workload.BS alone and
// fio's fixed-size pattern (fioPattern); any other draws each I/O as fio
// 3.33 draws it (sizedPattern, sizedraw.go).

// The directions of BlockSizes.Dirs, fio's DDIR_READ, DDIR_WRITE and
// DDIR_TRIM.
const (
	SizeRead  = 0
	SizeWrite = 1
	SizeTrim  = 2
)

// MaxSplit is fio's BSSPLIT_MAX: the most sizes one direction of a
// bssplit takes (fio stops reading the list there).
const MaxSplit = 64

// BlockSizes are a workload's I/O sizes per direction, as fio keeps them
// after its options are read: min_bs, max_bs, bssplit and ba per
// direction, bs_unaligned and bs_is_seq_rand.
type BlockSizes struct {
	// Dirs are the sizes of reads, writes and trims (SizeRead, SizeWrite,
	// SizeTrim). With SeqRand an I/O's size comes from Dirs[SizeRead] when
	// it is sequential and Dirs[SizeWrite] when it is random, as fio's
	// bs_is_seq_rand; its offset's alignment and the random map still
	// follow its direction.
	Dirs [3]DirSizes
	// Unaligned keeps a drawn size as drawn (fio's bs_unaligned); else it
	// is cut to a multiple of its direction's Min.
	Unaligned bool
	SeqRand   bool
}

// DirSizes is one direction's sizes. Min == Max is one size (fio's bs=).
// Otherwise each I/O draws its size: from Split when it has entries (fio's
// bssplit), else Min plus Max times a uniform draw (fio's bsrange, whose
// draw makes Max the most frequent size when Min does not divide it); the
// size is then cut to a multiple of Min (unless BlockSizes.Unaligned) and
// to Max, and drawn again while it does not fit before the end of the
// region.
type DirSizes struct {
	Min, Max int64
	// Split is the bssplit list as written: sizes and their shares in
	// percent (NoPct for an entry without one, which shares what the
	// others leave, as fio's bssplit_ddir).
	Split []SizeShare
	// Align is where a random I/O may start, a multiple of it from the
	// region's start (fio's blockalign); 0 is Min. Sequential I/O starts
	// where the last one ended.
	Align int64
}

// SizeShare is one entry of a bssplit list.
type SizeShare struct {
	Size int64
	Pct  int
}

// NoPct is the Pct of a bssplit entry written without a percentage (or
// with 0, which fio reads the same way).
const NoPct = -1

// Fixed returns the sizes of one size bs in every direction.
func Fixed(bs int64) BlockSizes {
	d := DirSizes{Min: bs, Max: bs}
	return BlockSizes{Dirs: [3]DirSizes{d, d, d}}
}

// fixedSize is the one size every I/O of a workload in mode rw has, at
// multiples of it, when the sizes come down to that: then fioPattern runs
// it, and nothing of this file costs an I/O anything. A sequential mode
// needs its own directions to be of one size; a random one every
// direction, since fio sizes its random map by the smallest size of all
// three and turns the map off at any blockalign other than a direction's
// size.
func (s *BlockSizes) fixedSize(rw RW) (int64, bool) {
	dirs := s.usedDirs(rw)
	if rw.Random() {
		dirs = []int{SizeRead, SizeWrite, SizeTrim}
	}
	bs := s.Dirs[dirs[0]].Min
	for _, d := range dirs {
		ds := &s.Dirs[d]
		if ds.Min != bs || ds.Max != bs || (rw.Random() && ds.Align != 0 && ds.Align != bs) {
			return 0, false
		}
	}
	return bs, true
}

// usedDirs are the directions whose sizes mode rw draws from (Dirs'
// indexes): with SeqRand the sequential or the random one.
func (s *BlockSizes) usedDirs(rw RW) []int {
	switch {
	case s.SeqRand && rw.Random():
		return []int{SizeWrite}
	case s.SeqRand:
		return []int{SizeRead}
	case rw.Trims():
		return []int{SizeTrim}
	case rw.TrimsThenWrites():
		return []int{SizeTrim, SizeWrite}
	case rw.Mixed():
		return []int{SizeRead, SizeWrite}
	case rw.Writes():
		return []int{SizeWrite}
	}
	return []int{SizeRead}
}

// largest is the largest size mode rw issues: what buffers are made for.
func (s *BlockSizes) largest(rw RW) int64 {
	var m int64
	for _, d := range s.usedDirs(rw) {
		m = max(m, s.Dirs[d].Max)
	}
	return m
}

// Apply makes w run these sizes: its Sizes and BS (the one size, or the
// largest an I/O may have), or BS alone when the sizes come down to one
// for w's rw mode. Call it once RW is final.
func (s BlockSizes) Apply(w *Workload) {
	if bs, ok := s.fixedSize(w.RW); ok {
		w.Sizes, w.BS = nil, bs
		return
	}
	w.Sizes, w.BS = &s, s.largest(w.RW)
}

// validateSizes holds the rules of varying sizes that need no look at the
// target: fio's own (bssplit_ddir's percentages, fixup_options' sizes),
// and what clyde runs with them.
func (w *Workload) validateSizes() error {
	s := w.Sizes
	if s == nil {
		return nil
	}
	for d := range s.Dirs {
		ds := &s.Dirs[d]
		if err := ds.validate(sizeDirNames[d]); err != nil {
			return err
		}
	}
	if w.BS != s.largest(w.RW) {
		return usagef("--bs", "workload %s: bs %d is not the largest of its block sizes, %d; set them with BlockSizes.Apply", w.Name, w.BS, s.largest(w.RW))
	}
	if w.Size > 0 && w.Size < s.minRegion() {
		return result.Usagef("--size", "%d is smaller than the smallest block size, %d (fio: size too small, must not be less than minimum block size)", w.Size, s.minRegion())
	}
	switch {
	case w.Access != nil || w.Volume != nil:
		return usagef("--bssplit", "workload %s: block sizes per direction, ranges and splits shape fio's rw modes on one target, not an access specification or a volume", w.Name)
	case w.SeqGap != 0 || w.SeqRepeat > 1:
		return usagef("--rw", "workload %s: clyde runs gaps and random runs (rw=MODE:N) with one block size; give bs= alone", w.Name)
	case w.Zones.Size > 0:
		return usagef("--zonemode", "workload %s: clyde runs strided zones with one block size; give bs= alone", w.Name)
	case w.Verify != VerifyNone && (w.VerifyBacklog > 0 || len(w.VerifyPattern) > 0):
		return usagef("--verify", "workload %s: verify_backlog and verify_pattern run with one block size; give bs= alone", w.Name)
	case w.Verify != VerifyNone && (s.SeqRand || s.Unaligned):
		return usagef("--verify", "workload %s: verify= with bs_is_seq_rand or bs_unaligned: clyde verifies writes of the write direction's sizes, multiples of fio's verify_interval", w.Name)
	case w.Verify != VerifyNone && !w.RandomMap && w.RW.Random():
		return usagef("--verify", "workload %s: verify= with norandommap and block sizes that vary: a write may cover part of an earlier one, which fio then cannot verify (fio: norandommap given for variable block sizes, verify limited); clyde refuses it rather than check less", w.Name)
	case w.RW.TrimsThenWrites():
		return usagef("--bs", "workload %s: rw=%s trims and then writes each block, of one size; give bs= alone", w.Name, w.RW)
	}
	if w.Direct {
		if bad, ok := s.misaligned(w.RW, DirectAlign); !ok {
			return result.Usagef("--bs", "%s is not a multiple of %d, which --direct needs", bad, DirectAlign)
		}
	}
	return nil
}

var sizeDirNames = [3]string{"read", "write", "trim"}

func (ds *DirSizes) validate(dir string) error {
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
	given, missing := 0, 0
	for _, e := range ds.Split {
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
func SplitError(dir int, split []SizeShare) error {
	ds := DirSizes{Min: 1, Max: 1, Split: split}
	return ds.validate(sizeDirNames[dir])
}

// minRegion is the smallest region fio runs the sizes in: its td_min_bs,
// the smallest size of any direction.
func (s *BlockSizes) minRegion() int64 {
	return min(s.Dirs[SizeRead].Min, s.Dirs[SizeWrite].Min, s.Dirs[SizeTrim].Min)
}

// minBS is fio's td_min_bs: BS, or the smallest size of any direction,
// to which a region's offset and share are cut (region.go).
func (w *Workload) minBS() int64 {
	if w.Sizes == nil {
		return w.BS
	}
	return w.Sizes.minRegion()
}

// misaligned finds a size or alignment mode rw may use that is not a
// multiple of a (the sizes a draw cuts to multiples of Min are, when Min
// and Max are): ok false and what it is.
func (s *BlockSizes) misaligned(rw RW, a int64) (what string, ok bool) {
	for _, d := range s.usedDirs(rw) {
		ds := &s.Dirs[d]
		switch {
		case ds.Min%a != 0 || ds.Max%a != 0:
			return fmt.Sprintf("%s block size %d-%d", sizeDirNames[d], ds.Min, ds.Max), false
		case ds.Min != ds.Max && s.Unaligned:
			return fmt.Sprintf("a %s size drawn with bs_unaligned", sizeDirNames[d]), false
		}
	}
	if rw.Random() {
		for d := range s.Dirs {
			if al := s.Dirs[d].Align; al%a != 0 {
				return fmt.Sprintf("%s blockalign %d", sizeDirNames[d], al), false
			}
		}
	}
	return "", true
}

// sizesMultipleOf says whether every size w issues, and every offset a
// random one starts at, is a multiple of a: BS itself for one size.
func (w *Workload) sizesMultipleOf(a int64) bool {
	if w.Sizes == nil {
		return w.BS%a == 0
	}
	_, ok := w.Sizes.misaligned(w.RW, a)
	return ok
}

// resolvedSplit is one direction's bssplit as fio keeps it: the entries
// without a share given what the others leave (in fio's unsigned
// arithmetic, so a list whose shares pass 100 with one entry without a
// share gives that entry a share past any draw), sorted by share, the
// order a draw tries them in (a stable sort, as glibc's qsort is on such
// a list).
func resolvedSplit(split []SizeShare) []SizeShare {
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
	out := make([]SizeShare, len(split))
	for i, e := range split {
		p := uint32(e.Pct)
		if e.Pct == NoPct {
			p = (100 - perc) / missing
		}
		out[i] = SizeShare{Size: e.Size, Pct: int(p)}
	}
	// fio's bs_cmp compares the shares as ints: one past 2^31 sorts first.
	slices.SortStableFunc(out, func(a, b SizeShare) int { return int(int32(uint32(a.Pct))) - int(int32(uint32(b.Pct))) })
	return out
}

// config is the sizes as the result records them.
func (s *BlockSizes) config() *result.BlockSizes {
	dir := func(d int) result.BlockSizeDir {
		ds := &s.Dirs[d]
		out := result.BlockSizeDir{MinBytes: ds.Min, MaxBytes: ds.Max, AlignBytes: ds.Align}
		if out.AlignBytes == 0 {
			out.AlignBytes = ds.Min
		}
		if ds.Min != ds.Max {
			for _, e := range resolvedSplit(ds.Split) {
				out.Split = append(out.Split, result.BlockSizeShare{BSBytes: e.Size, Pct: int64(uint32(e.Pct))})
			}
		}
		return out
	}
	return &result.BlockSizes{Read: dir(SizeRead), Write: dir(SizeWrite), Trim: dir(SizeTrim), Unaligned: s.Unaligned, SeqRand: s.SeqRand}
}

// String is the sizes in fio's words, as its text report heads a job:
// "(R) 4096-65536, (W) 8192, (T) 4096".
func (s *BlockSizes) String() string {
	var b strings.Builder
	for d, ds := range s.Dirs {
		if d > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "(%s) %d", strings.ToUpper(sizeDirNames[d][:1]), ds.Min)
		if ds.Max != ds.Min {
			b.WriteString("-" + strconv.FormatInt(ds.Max, 10))
		}
	}
	return b.String()
}

// sizesText names the workload's sizes in a refusal: BS, or each
// direction's.
func (w *Workload) sizesText() string {
	if w.Sizes == nil {
		return strconv.FormatInt(w.BS, 10)
	}
	return "block sizes " + w.Sizes.String()
}

// drawGrid is where a random offset of direction dir (0 reads, 1 writes)
// may go in span bytes: multiples of bs below blocks of them, fio's ba and
// last_block.
func (w *Workload) drawGrid(dir int, span int64) (bs, blocks int64) {
	if w.Sizes == nil {
		return w.BS, span / w.BS
	}
	ds := &w.Sizes.Dirs[dir]
	bs = ds.Align
	if bs == 0 {
		bs = ds.Min
	}
	if ds.Min > bs {
		span -= ds.Min - bs
	}
	return bs, span / bs
}

// verifyInterval is fio's verify_interval with verify= and no
// verify_interval=: the write size, or with write sizes that vary their
// smallest when it divides their largest and else the greatest common
// divisor of the two (init.c fixup_options). Every write is a whole
// number of intervals, each with a header of its own.
func (w *Workload) verifyInterval() int64 {
	if w.Sizes == nil {
		return w.BS
	}
	ds := &w.Sizes.Dirs[SizeWrite]
	if ds.Max%ds.Min == 0 {
		return ds.Min
	}
	a, b := ds.Min, ds.Max
	for b != 0 {
		a, b = b, a%b
	}
	return a
}
