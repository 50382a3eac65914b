package blockbench

import (
	"strconv"

	"github.com/clydebench/clyde/internal/blocksize"
	"github.com/clydebench/clyde/result"
)

// Block sizes that vary: fio's bs=R,W,T (a size per direction), bsrange,
// bssplit, blockalign, bs_unaligned and bs_is_seq_rand, held and drawn by
// internal/blocksize. A workload whose I/Os are all one size at multiples
// of it keeps Workload.BS alone and fio's fixed-size pattern (fioPattern);
// any other draws each I/O as fio 3.33 draws it (sizedPattern,
// sizedraw.go). This file holds what needs a Workload.

// The directions of BlockSizes.Dirs, fio's DDIR_READ, DDIR_WRITE and
// DDIR_TRIM.
const (
	SizeRead  = blocksize.Read
	SizeWrite = blocksize.Write
	SizeTrim  = blocksize.Trim
)

// MaxSplit is fio's BSSPLIT_MAX: the most sizes one direction of a
// bssplit takes (fio stops reading the list there).
const MaxSplit = blocksize.MaxSplit

// NoPct is the Pct of a bssplit entry written without a percentage (or
// with 0, which fio reads the same way).
const NoPct = blocksize.NoPct

// BlockSizes are a workload's I/O sizes per direction (blocksize.Sizes),
// as a type of blockbench's so that Apply can set a Workload.
type BlockSizes blocksize.Sizes

// DirSizes is one direction's sizes (blocksize.Dir).
type DirSizes = blocksize.Dir

// SizeShare is one entry of a bssplit list (blocksize.Share).
type SizeShare = blocksize.Share

// Fixed returns the sizes of one size bs in every direction.
func Fixed(bs int64) BlockSizes { return BlockSizes(blocksize.Fixed(bs)) }

// SplitError says what is wrong with one direction of a bssplit list, or
// nil: the rules Validate applies, for a job-file reader to report at the
// option's line.
func SplitError(dir int, split []SizeShare) error { return blocksize.SplitError(dir, split) }

func (s *BlockSizes) pure() *blocksize.Sizes { return (*blocksize.Sizes)(s) }

// String is the sizes in fio's words, as its text report heads a job:
// "(R) 4096-65536, (W) 8192, (T) 4096".
func (s *BlockSizes) String() string { return s.pure().String() }

// sizeMode is what of rw the sizes depend on: random offsets or not, and
// the directions it issues.
func sizeMode(rw RW) blocksize.Mode {
	m := blocksize.Mode{Random: rw.Random(), Dirs: []int{SizeRead}}
	switch {
	case rw.Trims():
		m.Dirs = []int{SizeTrim}
	case rw.TrimsThenWrites():
		m.Dirs = []int{SizeTrim, SizeWrite}
	case rw.Mixed():
		m.Dirs = []int{SizeRead, SizeWrite}
	case rw.Writes():
		m.Dirs = []int{SizeWrite}
	}
	return m
}

// Apply makes w run these sizes: its Sizes and BS (the one size, or the
// largest an I/O may have), or BS alone when the sizes come down to one
// for w's rw mode. Call it once RW is final.
func (s BlockSizes) Apply(w *Workload) {
	m := sizeMode(w.RW)
	if bs, ok := s.pure().FixedSize(m); ok {
		w.Sizes, w.BS = nil, bs
		return
	}
	w.Sizes, w.BS = &s, s.pure().Largest(m)
}

// validateSizes holds the rules of varying sizes that need no look at the
// target: fio's own (blocksize's Validate), and what clyde runs with them.
func (w *Workload) validateSizes() error {
	s := w.Sizes
	if s == nil {
		return nil
	}
	if err := s.pure().Validate(); err != nil {
		return err
	}
	if l := s.pure().Largest(sizeMode(w.RW)); w.BS != l {
		return usagef("--bs", "workload %s: bs %d is not the largest of its block sizes, %d; set them with BlockSizes.Apply", w.Name, w.BS, l)
	}
	if w.Size > 0 && w.Size < w.minBS() {
		return result.Usagef("--size", "%d is smaller than the smallest block size, %d (fio: size too small, must not be less than minimum block size)", w.Size, w.minBS())
	}
	if err := w.sizesRunnable(); err != nil {
		return err
	}
	if w.Direct {
		if bad, ok := s.pure().Misaligned(sizeMode(w.RW), DirectAlign); !ok {
			return result.Usagef("--bs", "%s is not a multiple of %d, which --direct needs", bad, DirectAlign)
		}
	}
	return nil
}

// sizesRunnable refuses what clyde does not run with sizes that vary.
func (w *Workload) sizesRunnable() error {
	s := w.Sizes
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
	return nil
}

// minBS is fio's td_min_bs: BS, or the smallest size of any direction,
// to which a region's offset and share are cut (region.go).
func (w *Workload) minBS() int64 {
	if w.Sizes == nil {
		return w.BS
	}
	return w.Sizes.pure().Smallest()
}

// sizesMultipleOf says whether every size w issues, and every offset a
// random one starts at, is a multiple of a: BS itself for one size.
func (w *Workload) sizesMultipleOf(a int64) bool {
	if w.Sizes == nil {
		return w.BS%a == 0
	}
	_, ok := w.Sizes.pure().Misaligned(sizeMode(w.RW), a)
	return ok
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
	return w.Sizes.Dirs[dir].Grid(span)
}

// verifyInterval is fio's verify_interval as init.c fixup_options
// settles it: the one given (VerifyInterval), at most the smallest write
// (and, for a job that reads, the smallest read), and the greatest common
// divisor of the smallest and largest writes when it is unset (0) or does
// not divide both; unset with writes of one size, the write size. Every
// write is a whole number of intervals, each with a header of its own.
func (w *Workload) verifyInterval() int64 {
	minW, maxW, minR, whole := w.BS, w.BS, w.BS, w.BS
	if w.Sizes != nil {
		d := w.Sizes.Dirs[SizeWrite]
		minW, maxW, minR, whole = d.Min, d.Max, w.Sizes.Dirs[SizeRead].Min, d.VerifyInterval()
	}
	vi := w.VerifyInterval
	if vi == 0 && maxW != minW {
		vi = minW
	}
	if vi > minW {
		vi = minW
	} else if w.RW.Reads() && vi > minR {
		vi = minR
	}
	if vi <= 0 || minW%vi != 0 || maxW%vi != 0 {
		vi = whole
	}
	return vi
}
