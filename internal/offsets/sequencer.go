package offsets

// The sequencer: fio's rw=MODE:N and rw_sequencer (io_u.c's
// get_next_offset, get_next_block and get_next_seq_offset), behind two
// neutral knobs.
//
// Gap, for the sequential modes, is fio's ddir_seq_add: the next I/O
// of a direction starts Gap bytes after the end of its last one
// (before it, when negative). fio computes it from the file's own size,
// not the region's, and clyde does the same with the target's size (a
// file clyde creates ends where the region does):
//   - a forward gap that lands at or past the end of the target goes back
//     to the start of the region; a backward one that goes below the start
//     of the region goes to the end of the region, less the gap;
//   - the first I/O of a pass is at the start of the region (backwards with
//     an offset: at the end, less the gap);
//   - a pass ends early, as fio's does, when the last I/O ended at or past
//     the end of the target, or the next offset is past the region; a
//     job's I/O count is then smaller than its size over its block size.
//
// fio keeps a quirk of its own: a forward gap past the target's end goes
// back to offset= counted from the region's start (twice offset=). clyde
// follows it, so that the two issue the same offsets.
//
// Repeat, for the random modes, is fio's ddir_seq_nr: every Repeat
// I/Os (one count for both directions of a mixed mode, as fio's) the
// offset is drawn at random; the I/Os between follow the last one of
// their direction (rw_sequencer=sequential, fio's default: contiguous,
// drawn at random again at the end of the region) or repeat its offset
// (RepeatSame, rw_sequencer=identical). Only the draws take blocks from
// the random map, as fio marks its map for them alone (IO_U_F_BUSY_OK).
// The first I/O is a draw, as fio's since its init.c sets ddir_seq_nr to
// 1 (fio 3.33 issued the first Repeat I/Os from the start of the
// region).

// Sequence is what a sequencer walks: the region in fio's own terms and
// the two knobs.
type Sequence struct {
	// Offset is the region's first byte (fio's file_offset), Blocks its
	// whole blocks of BS bytes (io_size), TargetSize the target's size
	// (real_file_size).
	Offset, TargetSize, BS int64
	Blocks                 uint64
	// Gap is fio's ddir_seq_add; Repeat its ddir_seq_nr, RepeatSame
	// rw_sequencer=identical.
	Gap        int64
	Repeat     int
	RepeatSame bool
	// TimeBased goes on past the region's end instead of ending a pass.
	TimeBased bool
}

// Sequencer places the I/Os of one worker with a gap between sequential
// I/Os, or a run of I/Os per random draw. It asks its worker for a
// direction (pickDir) and, for a draw, a random block of the region
// (randomBlock).
type Sequencer struct {
	seq         Sequence
	regionEnd   int64
	pickDir     func() int
	randomBlock func(dir int) uint64
	// lastStart and lastEnd are fio's last_start and last_pos per
	// direction: where the last I/O began (-1: none yet this pass) and
	// ended (the start of the region before any).
	lastStart, lastEnd [2]int64
	// left counts down to the next random draw (fio's td->ddir_seq_nr).
	left int
	// With a gap the sequencer looks one I/O ahead, since fio ends a
	// pass when it cannot place the next one: dir and off are that I/O,
	// primed says they are set, drawn counts the pass's I/Os so far and
	// passIOs is a full pass.
	dir     int
	off     int64
	primed  bool
	drawn   int64
	passIOs int64
}

// NewSequencer is the sequencer of one worker over seq.
func NewSequencer(seq Sequence, pickDir func() int, randomBlock func(dir int) uint64) *Sequencer {
	s := &Sequencer{seq: seq, regionEnd: seq.Offset + int64(seq.Blocks)*seq.BS, pickDir: pickDir, randomBlock: randomBlock,
		left: 1, passIOs: int64(seq.Blocks)}
	s.resetPass()
	return s
}

// resetPass is fio's fio_file_reset at the start of a pass.
func (s *Sequencer) resetPass() {
	s.lastStart = [2]int64{-1, -1}
	s.lastEnd = [2]int64{s.seq.Offset, s.seq.Offset}
	s.drawn = 0
}

// Next is the direction and offset of the next I/O. When a pass ended
// early, skipped is the count of its I/Os that will not be issued at all
// (the job's count loses them); last says no I/O after this one has a
// place.
func (s *Sequencer) Next() (dir int, off int64, skipped int64, last bool) {
	bs := s.seq.BS
	if s.seq.Gap == 0 {
		dir := s.pickDir()
		off := s.repeatOffset(dir)
		s.lastStart[dir], s.lastEnd[dir] = off, off+bs
		return dir, off, 0, false
	}
	if !s.primed {
		s.prime()
	}
	dir, off = s.dir, s.off
	s.lastStart[dir], s.lastEnd[dir] = off, off+bs
	s.drawn++
	if s.drawn == s.passIOs && !s.seq.TimeBased {
		// A full pass: the next one starts over, as fio's next loop.
		s.resetPass()
	}
	if !s.pull() {
		// fio cannot place the next I/O: this pass ends here, and
		// its I/Os not issued are not issued at all.
		if !s.seq.TimeBased && s.drawn > 0 {
			skipped = s.passIOs - s.drawn
		}
		s.resetPass()
		last = !s.pull() // not even a first I/O: this one is the last
	}
	return dir, off, skipped, last
}

// prime draws the pass's first I/O; a region where even that has no
// place gets its start (validation keeps it inside the target).
func (s *Sequencer) prime() {
	s.primed = true
	if !s.pull() {
		s.dir, s.off = s.pickDir(), s.seq.Offset
	}
}

// pull draws the direction and offset of the I/O after the one being
// issued; false when fio would place none.
func (s *Sequencer) pull() bool {
	s.dir = s.pickDir()
	off, ok := s.gapOffset(s.dir)
	s.off = off
	return ok
}

// gapOffset is fio's get_next_seq_offset with ddir_seq_add, and the
// bounds get_next_offset checks, in fio's own terms: file_offset (the
// region's start), io_size (the region's size) and real_file_size (the
// target's).
func (s *Sequencer) gapOffset(dir int) (int64, bool) {
	fileOff, ioSize, realSize, gap := s.seq.Offset, int64(s.seq.Blocks)*s.seq.BS, s.seq.TargetSize, s.seq.Gap
	last := s.lastEnd[dir]
	if last >= ioSize+fileOff && s.seq.TimeBased {
		last = fileOff
	}
	if last >= realSize {
		return 0, false
	}
	if last == fileOff && fileOff != 0 && gap < 0 {
		last = min(ioSize, realSize) // fio's rewind, to io_size itself
	}
	pos := last - fileOff
	if pos != 0 {
		pos += gap
		if pos < 0 || pos >= realSize {
			if gap > 0 {
				pos = fileOff
			} else {
				pos = min(ioSize, realSize) + gap
			}
		}
	}
	if pos < 0 || pos >= ioSize || pos+fileOff >= realSize {
		return 0, false
	}
	return pos + fileOff, true
}

// repeatOffset is a random mode's offset with a run per draw.
func (s *Sequencer) repeatOffset(dir int) int64 {
	bs := s.seq.BS
	s.left--
	if s.left <= 0 {
		s.left = s.seq.Repeat
		return s.seq.Offset + int64(s.randomBlock(dir))*bs
	}
	switch {
	case s.seq.RepeatSame && s.lastStart[dir] >= 0:
		return s.lastStart[dir]
	case s.seq.RepeatSame:
		return s.seq.Offset
	case s.lastEnd[dir]+bs <= s.regionEnd:
		return s.lastEnd[dir]
	}
	// Past the end of the region: fio draws at random, and the count
	// to the next draw goes on.
	return s.seq.Offset + int64(s.randomBlock(dir))*bs
}
