package fiojob

import (
	"math"
	"strings"

	"github.com/clydebench/clyde/blockbench"
	"github.com/clydebench/clyde/result"
)

// rw reads fio's rw= (alias readwrite=): the mode and, after a colon,
// fio's offset modifier (options.c str_rw_cb). For a sequential mode it
// is a size, negative to go backwards, added after every I/O (fio's
// ddir_seq_add: blockbench's SeqGap); for a random mode the number of
// I/Os one random offset serves (ddir_seq_nr: SeqRepeat), how by
// rw_sequencer=. Every rw= starts again from no modifier, as fio's.
func (j *job) rw(o Option) error {
	if err := needValue(o); err != nil {
		return err
	}
	mode, mod, hasMod := strings.Cut(o.Value, ":")
	rw, err := blockbench.ParseRW(mode)
	if err != nil {
		return result.Usagef(o.Pos, "rw=%s: accepted: read, write, randread, randwrite, rw (readwrite), randrw, trim, randtrim, trimwrite, randtrimwrite, each with :N", o.Value)
	}
	j.w.RW, j.w.SeqGap, j.w.SeqRepeat = rw, 0, 0
	if !hasMod {
		return nil
	}
	n, err := j.rwModifier(o, rw, mod)
	if err != nil {
		return err
	}
	switch {
	case rw.Random() && n == 1, !rw.Random() && n == 0:
		return nil // fio's default: nothing to change
	case rw.Discards():
		return result.Usagef(o.Pos, "rw=%s: clyde runs an offset modifier with read, write and their mixes, not with a mode that trims", o.Value)
	case rw.Random():
		j.w.SeqRepeat = int(n)
	default:
		j.w.SeqGap = n
	}
	return nil
}

// rwModifier reads the N of rw=MODE:N as fio's str_to_decimal does, in
// the job's kb_base: a size with a sign for a sequential mode, a count
// from 1 to UINT_MAX for a random one.
func (j *job) rwModifier(o Option, rw blockbench.RW, mod string) (int64, error) {
	digits, negative := strings.CutPrefix(strings.TrimSpace(mod), "-")
	n, err := ParseSize(digits, j.kb)
	if err != nil {
		return 0, result.Usagef(o.Pos, "rw=%s: %q after the colon is not a number (a size such as 8k, or -8k, for a sequential mode; a count for a random one)", o.Value, mod)
	}
	if negative {
		n = -n
	}
	if rw.Random() && (n <= 0 || n > math.MaxUint32) {
		return 0, result.Usagef(o.Pos, "rw=%s: a random mode's :N is how many I/Os one random offset serves, from 1 to %d", o.Value, uint32(math.MaxUint32))
	}
	return n, nil
}

// addRWOptions adds the rw options beside rw= itself.
func addRWOptions() { handlers["rw_sequencer"] = (*job).rwSequencer }

// rwSequencer is fio's rw_sequencer=: how the I/Os of a random mode's
// run after each draw find their offsets.
func (j *job) rwSequencer(o Option) error {
	switch o.Value {
	case "sequential":
		j.w.SeqRepeatSame = false
	case "identical":
		j.w.SeqRepeatSame = true
	default:
		return result.Usagef(o.Pos, "rw_sequencer=%q: give sequential (the I/Os after a random offset follow it) or identical (they repeat it)", o.Value)
	}
	return nil
}

// rwNotes say where what clyde runs for the job's rw mode is not what the
// fio the suite compares with (3.33) runs.
func (j *job) rwNotes(w blockbench.Workload) []string {
	var notes []string
	if w.RW == blockbench.RandTrimWrite && w.Offset > 0 {
		notes = append(notes, "job "+j.sec.Name+": rw=randtrimwrite with offset=: fio 3.33 writes each trimmed block at its offset plus offset= again (fixed by axboe/fio#1932, 2025), so its writes land elsewhere or the job ends after its first trim; clyde writes each block where it trimmed it, as fio does since")
	}
	if w.SeqRepeat > 1 {
		notes = append(notes, "job "+j.sec.Name+": rw="+j.set["rw"].Value+": clyde draws the first offset at random, as fio does since its init.c sets ddir_seq_nr to 1; fio 3.33 issues the first run from the start of the region")
	}
	return notes
}
