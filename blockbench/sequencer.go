package blockbench

import "github.com/clydebench/clyde/internal/offsets"

// The sequencer (fio's rw=MODE:N and rw_sequencer) is internal/offsets's
// Sequencer: SeqGap is its Gap (fio's ddir_seq_add), SeqRepeat its Repeat
// (ddir_seq_nr). Here are the rules that need a Workload, and the
// worker's side: its directions, its random draws and its I/O count.

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
type seqPattern struct{ seq *offsets.Sequencer }

func newSeqPattern(w *worker) *seqPattern {
	s := offsets.Sequence{Offset: w.spec.Offset, BS: w.spec.BS, Blocks: w.nBlocks,
		Gap: w.spec.SeqGap, Repeat: w.spec.SeqRepeat, RepeatSame: w.spec.SeqRepeatSame, TimeBased: w.spec.TimeBased}
	if w.spec.target != nil {
		s.TargetSize = w.spec.target.Size
	}
	return &seqPattern{seq: offsets.NewSequencer(s, w.pickDir, w.randomBlock)}
}

func (p *seqPattern) maxSize(w *worker) int { return int(w.spec.BS) }

func (p *seqPattern) next(w *worker) (int, int64, int) {
	dir, off, skipped, last := p.seq.Next()
	if skipped != 0 {
		w.skipIOs(skipped)
	}
	if last {
		w.remaining = min(w.remaining, 1) // not even a first I/O: this one is the last
	}
	return dir, off, int(w.spec.BS)
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
