package blockbench

import (
	"context"
	"io"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/clydebench/clyde/internal/clydetest"
)

// TestSequencerOffsets records the offsets a worker issues with a gap
// between sequential I/Os and with a run of I/Os per random draw. The
// sequential cases are fio 3.33's own: its per-I/O latency log
// (log_offset=1, log_avg_msec=0) for the same job on a file it created,
// in KiB.
func TestSequencerOffsets(t *testing.T) {
	const k = 1024
	cases := []struct {
		name   string
		edit   func(w *Workload)
		fioKiB string // "": checked by check
		check  func(t *testing.T, offs []int64)
	}{
		{"write:8k ends the pass where the last I/O ends the file", func(w *Workload) { w.RW, w.SeqGap = Write, 8*k },
			"0 12 24 36 48 60", nil},
		{"write:4k goes back to the start", func(w *Workload) { w.RW, w.SeqGap = Write, 4*k },
			"0 8 16 24 32 40 48 56 0 8 16 24 32 40 48 56", nil},
		{"read:-8k reads backwards", func(w *Workload) { w.SeqGap = -8 * k },
			"0 56 52 48 44 40 36 32 28 24 20 16 12 8 4 0", nil},
		{"read:-4k stays at the start", func(w *Workload) { w.SeqGap = -4 * k },
			"0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0", nil},
		{"read:-8k with offset starts at the end", func(w *Workload) { w.SeqGap, w.Offset, w.Size = -8*k, 16*k, 32*k },
			"24 20 16 40 36 32 28 24", nil},
		{"write:8k twice", func(w *Workload) { w.RW, w.SeqGap, w.Loops = Write, 8*k, 2 },
			"0 12 24 36 48 60 0 12 24 36 48 60", nil},
		{"write:8k time_based goes back at the region's end", func(w *Workload) {
			w.RW, w.SeqGap, w.TimeBased, w.Runtime = Write, 8*k, true, 20*time.Millisecond
		}, "", func(t *testing.T, offs []int64) {
			// fio's get_next_seq_offset: a time-based job at the end of
			// its region starts over at offset=.
			for i, o := range offs {
				if want := int64(i%6) * 12 * k; o != want {
					t.Fatalf("I/O %d at %d, want %d: 0, 12k ... 60k and again", i, o, want)
				}
			}
		}},
		{"randread:4 identical", func(w *Workload) { w.RW, w.SeqRepeat, w.SeqRepeatSame = RandRead, 4, true }, "",
			func(t *testing.T, offs []int64) {
				seen := map[int64]bool{}
				for i := 0; i < len(offs); i += 4 {
					if offs[i+1] != offs[i] || offs[i+2] != offs[i] || offs[i+3] != offs[i] {
						t.Errorf("I/Os %d-%d at %v, want one offset four times", i, i+3, offs[i:i+4])
					}
					seen[offs[i]] = true
				}
				if len(seen) != 4 {
					t.Errorf("draws %v: want 4 distinct blocks (the random map)", seen)
				}
			}},
		{"randread:4 sequential", func(w *Workload) { w.RW, w.SeqRepeat = RandRead, 4 }, "",
			func(t *testing.T, offs []int64) {
				draws := map[int64]bool{}
				for i, o := range offs {
					if i%4 == 0 {
						draws[o] = true
						continue
					}
					if o != offs[i-1]+4*k && offs[i-1] != 60*k {
						t.Errorf("I/O %d at %d after %d: want the next block, the run going on from the draw", i, o, offs[i-1])
					}
				}
				if len(draws) != 4 {
					t.Errorf("draws %v: want 4 distinct blocks (the random map)", draws)
				}
				if isSequential(offs) {
					t.Errorf("offsets %v are one sequential pass: no draw", offs)
				}
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			seq := &seqSpec{}
			w := Workload{Name: "s", Filename: filepath.Join(t.TempDir(), "f"), RW: Read, BS: 4 * k, Size: 64 * k, IODepth: 1, NumJobs: 1,
				IOEngine: EnginePsync, Buffer: Buffer{Kind: BufferRandom}, Seed: 3, RandomMap: true, Log: seq}
			c.edit(&w)
			res, err := RunPlan(context.Background(), Plan{Groups: []Group{{w}}})
			if err != nil {
				t.Fatal(err)
			}
			var offs []int64
			var kib []string
			for _, s := range *seq.got {
				_, at, _ := strings.Cut(s, "@")
				o, _ := strconv.ParseInt(at, 10, 64)
				offs = append(offs, o)
				kib = append(kib, strconv.FormatInt(o/k, 10))
			}
			j := res.Jobs[0]
			if n := j.Read.TotalIOs + j.Write.TotalIOs; n != int64(len(offs)) {
				t.Errorf("%d I/Os counted, %d recorded", n, len(offs))
			}
			if c.fioKiB != "" && strings.Join(kib, " ") != c.fioKiB {
				t.Errorf("offsets (KiB) %s, fio's %s", strings.Join(kib, " "), c.fioKiB)
			}
			if c.check != nil {
				if len(offs) != 16 && !w.TimeBased {
					t.Fatalf("%d I/Os, want 16", len(offs))
				}
				c.check(t, offs)
			}
		})
	}
}

// TestSequencerSyncs: a pass that ends early still syncs after its last
// write, as fio 3.33 does (rw=write:8k, fsync=2 on a 64k file: 6 writes,
// 3 syncs), since its byte budget is not spent.
func TestSequencerSyncs(t *testing.T) {
	w := Workload{Name: "s", Filename: filepath.Join(t.TempDir(), "f"), RW: Write, BS: 4096, Size: 64 << 10, IODepth: 1, NumJobs: 1,
		IOEngine: EnginePsync, Buffer: Buffer{Kind: BufferRandom}, Seed: 3, SeqGap: 8 << 10, Fsync: 2}
	res, err := RunPlan(context.Background(), Plan{Groups: []Group{{w}}})
	if err != nil {
		t.Fatal(err)
	}
	if j := res.Jobs[0]; j.Write.TotalIOs != 6 || j.Sync.TotalIOs != 3 {
		t.Errorf("%d writes, %d syncs; fio's 6 and 3", j.Write.TotalIOs, j.Sync.TotalIOs)
	}
}

// TestSequencerQueued: a queueing engine, which counts an I/O when it
// submits it rather than when it completes, issues the same offsets with
// a gap and ends the pass at the same I/O.
func TestSequencerQueued(t *testing.T) {
	qs := queueingEngines()
	if len(qs) == 0 {
		clydetest.Skip(t, "no queueing engine on this platform")
	}
	seq := &seqSpec{}
	w := Workload{Name: "q", Filename: filepath.Join(t.TempDir(), "f"), RW: Write, BS: 4096, Size: 64 << 10, IODepth: 4, NumJobs: 1,
		IOEngine: Engine(qs[0]), Buffer: Buffer{Kind: BufferRandom}, Seed: 3, SeqGap: 8 << 10, Loops: 2, Log: seq}
	res, err := RunPlan(context.Background(), Plan{Groups: []Group{{w}}})
	if err != nil {
		t.Fatal(err)
	}
	got := append([]string(nil), *seq.got...)
	sort.Strings(got)
	var want []string
	for range 2 {
		for _, o := range []int{0, 12, 24, 36, 48, 60} {
			want = append(want, "1@"+strconv.Itoa(o<<10))
		}
	}
	sort.Strings(want)
	if strings.Join(got, " ") != strings.Join(want, " ") || res.Jobs[0].Write.TotalIOs != 12 {
		t.Errorf("%s: %d writes at %v, want 12 at %v", qs[0], res.Jobs[0].Write.TotalIOs, got, want)
	}
}

func isSequential(offs []int64) bool {
	for i := 1; i < len(offs); i++ {
		if offs[i] != offs[i-1]+4096 {
			return false
		}
	}
	return true
}

// TestSequencerRefusals: the sequencer runs on fio's read and write modes
// on one target, and says so otherwise.
func TestSequencerRefusals(t *testing.T) {
	for _, c := range []struct {
		name string
		edit func(w *Workload)
		want string
	}{
		{"gap on a random mode", func(w *Workload) { w.RW, w.SeqGap = RandRead, 4096 }, "at random"},
		{"run on a sequential mode", func(w *Workload) { w.SeqRepeat = 4 }, "sequential already"},
		{"trim", func(w *Workload) { w.RW, w.SeqRepeat = RandTrim, 4 }, "trims"},
		{"negative run", func(w *Workload) { w.RW, w.SeqRepeat = RandRead, -1 }, "1 or more"},
		{"verify", func(w *Workload) { w.RW, w.SeqGap, w.Verify = Write, 4096, VerifyCRC32C }, "verif"},
		{"direct alignment", func(w *Workload) { w.SeqGap, w.Direct = 100, true }, "alignment"},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := Workload{Name: "s", Filename: "f", RW: Read, BS: 4096, Size: 1 << 20, IODepth: 1, NumJobs: 1,
				IOEngine: EnginePsync, Buffer: Buffer{Kind: BufferRandom}}
			c.edit(&w)
			if err := w.validate(); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%v, want a refusal saying %q", err, c.want)
			}
		})
	}
}

// seqSpec records every completion's direction and offset, in order.
type seqSpec struct {
	got *[]string
	n   int
}

func (s *seqSpec) Validate() error           { return nil }
func (s *seqSpec) Writes() bool              { return false }
func (s *seqSpec) Options(func(k, v string)) {}
func (s *seqSpec) StartGroup(ws []RecordedWorkload) (GroupRecorder, error) {
	s.n = len(ws)
	if s.got == nil {
		s.got = new([]string)
	}
	return s, nil
}
func (s *seqSpec) Worker(RecordedWorker) (IORecorder, bool) {
	return observeFunc(func(r IORecord) {
		*s.got = append(*s.got, strconv.Itoa(r.Dir)+"@"+strconv.FormatInt(r.Offset, 10))
	}), true
}
func (s *seqSpec) Close() {}
func (s *seqSpec) Write(func(string, func(io.Writer) error) error) ([][]string, error) {
	return make([][]string, s.n), nil
}
