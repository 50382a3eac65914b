package blockbench

// The sequencer: fio's rw=MODE:N and rw_sequencer (io_u.c's
// get_next_offset, get_next_block and get_next_seq_offset), behind two
// neutral knobs.
//
// SeqGap, for the sequential modes, is fio's ddir_seq_add: the next I/O
// of a direction starts SeqGap bytes after the end of its last one
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
// SeqRepeat, for the random modes, is fio's ddir_seq_nr: every SeqRepeat
// I/Os (one count for both directions of a mixed mode, as fio's) the
// offset is drawn at random; the I/Os between follow the last one of
// their direction (rw_sequencer=sequential, fio's default: contiguous,
// drawn at random again at the end of the region) or repeat its offset
// (SeqRepeatSame, rw_sequencer=identical). Only the draws take blocks from
// the random map, as fio marks its map for them alone (IO_U_F_BUSY_OK).
// The first I/O is a draw, as fio's since its init.c sets ddir_seq_nr to
// 1 (fio 3.33 issued the first SeqRepeat I/Os from the start of the
// region).

// validateSequencer refuses a sequencer clyde does not run as fio does.
func (w *Workload) validateSequencer() error {
	if w.SeqGap == 0 && (w.SeqRepeat == 0 || w.SeqRepeat == 1) {
		return nil
	}
	switch {
	case w.SeqRepeat < 0:
		return usagef("--rw", "workload %s: a random run of %d I/Os; give 1 or more", w.Name, w.SeqRepeat)
	case w.SeqGap != 0 && w.RW.Random():
		return usagef("--rw", "workload %s: rw=%s draws its offsets at random; a gap between sequential I/Os applies to read, write and rw", w.Name, w.RW)
	case w.SeqRepeat > 1 && !w.RW.Random():
		return usagef("--rw", "workload %s: rw=%s is sequential already; a run of I/Os per random draw applies to randread, randwrite and randrw", w.Name, w.RW)
	case w.RW.Discards():
		return usagef("--rw", "workload %s: rw=%s trims: clyde runs gaps and random runs with read, write and their mixes", w.Name, w.RW)
	case w.Access != nil || w.Volume != nil:
		return usagef("--rw", "workload %s: gaps and random runs shape fio's rw modes on one target, not a workload's own pattern (an access specification) or a volume", w.Name)
	case w.Zones.Size > 0:
		return usagef("--zonemode", "workload %s: strided zones with gaps or random runs are not supported", w.Name)
	case w.Verify != VerifyNone:
		return usagef("--verify", "workload %s: clyde verifies a write pass without gaps or random runs", w.Name)
	case w.Direct && w.SeqGap%DirectAlign != 0:
		return usagef("--rw", "workload %s: a gap of %d bytes breaks the %d-byte alignment --direct needs", w.Name, w.SeqGap, DirectAlign)
	}
	return nil
}

// seqPattern is fioPattern with the sequencer: a gap between sequential
// I/Os, or a run of I/Os per random draw.
type seqPattern struct {
	// lastStart and lastEnd are fio's last_start and last_pos per
	// direction: where the last I/O began (-1: none yet this pass) and
	// ended (the start of the region before any).
	lastStart, lastEnd [2]int64
	// left counts down to the next random draw (fio's td->ddir_seq_nr).
	left int
	// With a gap the pattern looks one I/O ahead, since fio ends a pass
	// when it cannot place the next one: dir and off are that I/O, primed
	// says they are set, drawn counts the pass's I/Os so far and passIOs
	// is a full pass.
	dir     int
	off     int64
	primed  bool
	drawn   int64
	passIOs int64
}

func newSeqPattern(w *worker) *seqPattern {
	p := &seqPattern{left: 1, passIOs: int64(w.nBlocks)}
	p.resetPass(w)
	return p
}

func (p *seqPattern) maxSize(w *worker) int { return int(w.spec.BS) }

// resetPass is fio's fio_file_reset at the start of a pass.
func (p *seqPattern) resetPass(w *worker) {
	p.lastStart = [2]int64{-1, -1}
	p.lastEnd = [2]int64{w.spec.Offset, w.spec.Offset}
	p.drawn = 0
}

func (p *seqPattern) next(w *worker) (int, int64, int) {
	bs := w.spec.BS
	if w.spec.SeqGap == 0 {
		dir := w.pickDir()
		off := p.repeatOffset(w, dir)
		p.lastStart[dir], p.lastEnd[dir] = off, off+bs
		return dir, off, int(bs)
	}
	if !p.primed {
		p.prime(w)
	}
	dir, off := p.dir, p.off
	p.lastStart[dir], p.lastEnd[dir] = off, off+bs
	p.drawn++
	if p.drawn == p.passIOs && !w.spec.TimeBased {
		// A full pass: the next one starts over, as fio's next loop.
		p.resetPass(w)
	}
	if !p.pull(w) {
		// fio cannot place the next I/O: this pass ends here, and
		// its I/Os not issued are not issued at all.
		if !w.spec.TimeBased && p.drawn > 0 {
			w.skipIOs(p.passIOs - p.drawn)
		}
		p.resetPass(w)
		if !p.pull(w) {
			w.remaining = min(w.remaining, 1) // not even a first I/O: this one is the last
		}
	}
	return dir, off, int(bs)
}

// skipIOs takes the n I/Os a pass that ended early did not issue from the
// job's count, and moves the cache drop due at the end of the pass to
// where it ended. The job's I/O limit stays: fio still syncs after the
// last write of a pass that ended early (fsync=2 with rw=write:8k on a
// 64k file: 6 writes, 3 syncs), since its byte budget is not spent.
func (w *worker) skipIOs(n int64) {
	w.remaining -= n
	if w.dropEvery > 0 {
		w.nextDrop -= n
	}
}

// prime draws the pass's first I/O; a region where even that has no
// place gets its start (validation keeps it inside the target).
func (p *seqPattern) prime(w *worker) {
	p.primed = true
	if !p.pull(w) {
		p.dir, p.off = w.pickDir(), w.spec.Offset
	}
}

// pull draws the direction and offset of the I/O after the one being
// issued; false when fio would place none.
func (p *seqPattern) pull(w *worker) bool {
	p.dir = w.pickDir()
	off, ok := p.gapOffset(w, p.dir)
	p.off = off
	return ok
}

// gapOffset is fio's get_next_seq_offset with ddir_seq_add, and the
// bounds get_next_offset checks, in fio's own terms: file_offset (the
// region's start), io_size (the region's size) and real_file_size (the
// target's).
func (p *seqPattern) gapOffset(w *worker, dir int) (int64, bool) {
	fileOff, ioSize, realSize, gap := w.spec.Offset, int64(w.nBlocks)*w.spec.BS, w.spec.target.size, w.spec.SeqGap
	last := p.lastEnd[dir]
	if last >= ioSize+fileOff && w.spec.TimeBased {
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
func (p *seqPattern) repeatOffset(w *worker, dir int) int64 {
	p.left--
	if p.left <= 0 {
		p.left = w.spec.SeqRepeat
		return w.spec.Offset + int64(w.randomBlock(dir))*w.spec.BS
	}
	switch {
	case w.spec.SeqRepeatSame && p.lastStart[dir] >= 0:
		return p.lastStart[dir]
	case w.spec.SeqRepeatSame:
		return w.spec.Offset
	case p.lastEnd[dir]+w.spec.BS <= w.regionEnd:
		return p.lastEnd[dir]
	}
	// Past the end of the region: fio draws at random, and the count
	// to the next draw goes on.
	return w.spec.Offset + int64(w.randomBlock(dir))*w.spec.BS
}
