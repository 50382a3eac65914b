package offsets

import (
	"strconv"
	"strings"
	"testing"
)

// TestSequencerGap replays fio 3.33's own offsets for a gap between
// sequential I/Os (its per-I/O latency log, log_offset=1, for the same
// job on a file it created, in KiB), counting the job's I/Os as a worker
// does: a pass's I/Os not issued leave the count.
func TestSequencerGap(t *testing.T) {
	const k = 1024
	for _, c := range []struct {
		name                string
		dir                 int
		gap, offset, blocks int64
		loops               int64
		fioKiB              string
	}{
		{"write:8k ends the pass where the last I/O ends the file", 1, 8 * k, 0, 16, 1, "0 12 24 36 48 60"},
		{"write:4k goes back to the start", 1, 4 * k, 0, 16, 1, "0 8 16 24 32 40 48 56 0 8 16 24 32 40 48 56"},
		{"read:-8k reads backwards", 0, -8 * k, 0, 16, 1, "0 56 52 48 44 40 36 32 28 24 20 16 12 8 4 0"},
		{"read:-4k stays at the start", 0, -4 * k, 0, 16, 1, "0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0"},
		{"read:-8k with offset starts at the end", 0, -8 * k, 16 * k, 8, 1, "24 20 16 40 36 32 28 24"},
		{"write:8k twice", 1, 8 * k, 0, 16, 2, "0 12 24 36 48 60 0 12 24 36 48 60"},
	} {
		t.Run(c.name, func(t *testing.T) {
			seq := Sequence{Offset: c.offset, BS: 4 * k, Blocks: uint64(c.blocks), TargetSize: c.offset + c.blocks*4*k, Gap: c.gap}
			s := NewSequencer(seq, func() int { return c.dir }, func(int) uint64 { t.Fatal("a sequential mode drew at random"); return 0 })
			var kib []string
			for remaining := c.blocks * c.loops; remaining > 0; remaining-- {
				dir, off, skipped, last := s.Next()
				if dir != c.dir {
					t.Fatalf("direction %d, want %d", dir, c.dir)
				}
				remaining -= skipped
				if last {
					remaining = min(remaining, 1)
				}
				kib = append(kib, strconv.FormatInt(off/k, 10))
			}
			if got := strings.Join(kib, " "); got != c.fioKiB {
				t.Errorf("offsets (KiB) %s, fio's %s", got, c.fioKiB)
			}
		})
	}
}

// TestSequencerRepeat: a run of I/Os per random draw, following the draw
// (rw_sequencer=sequential, on at the region's end with a new draw) or
// repeating it (identical); only the draws ask for a random block.
func TestSequencerRepeat(t *testing.T) {
	const bs = 4096
	for _, same := range []bool{false, true} {
		draws := []uint64{3, 15, 0, 9}
		asked := 0
		s := NewSequencer(Sequence{Offset: 8 * bs, BS: bs, Blocks: 16, TargetSize: 24 * bs, Repeat: 3, RepeatSame: same},
			func() int { return 0 }, func(int) uint64 { b := draws[asked%len(draws)]; asked++; return b })
		var got []string
		for range 9 {
			_, off, skipped, last := s.Next()
			if skipped != 0 || last {
				t.Fatalf("a random run ended a pass: skipped %d last %v", skipped, last)
			}
			got = append(got, strconv.FormatInt(off/bs-8, 10))
		}
		want := "3 4 5 15 0 1 9 10 11" // past the region's end after block 15: a draw (0), and the count to the next draw goes on
		if same {
			want = "3 3 3 15 15 15 0 0 0"
		}
		if g := strings.Join(got, " "); g != want {
			t.Errorf("identical %v: blocks %s, want %s", same, g, want)
		}
	}
}
