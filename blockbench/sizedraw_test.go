package blockbench

import (
	"context"
	"errors"
	"fmt"
	"github.com/clydebench/clyde/internal/clydetest"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/clydebench/clyde/internal/osio"
)

const kib = int64(1024)

// ioLog records every completion: direction, offset, bytes.
type ioLog struct {
	got *[]IORecord
	n   int
}

func (s *ioLog) Validate() error           { return nil }
func (s *ioLog) Writes() bool              { return false }
func (s *ioLog) Options(func(k, v string)) {}
func (s *ioLog) StartGroup(ws []RecordedWorkload) (GroupRecorder, error) {
	s.n = len(ws)
	if s.got == nil {
		s.got = new([]IORecord)
	}
	return s, nil
}
func (s *ioLog) Worker(RecordedWorker) (IORecorder, bool) {
	return observeFunc(func(r IORecord) { *s.got = append(*s.got, r) }), true
}
func (s *ioLog) Close() {}
func (s *ioLog) Write(func(string, func(io.Writer) error) error) ([][]string, error) {
	return make([][]string, s.n), nil
}

// runSized runs w on the null engine with the sizes and returns its I/Os.
func runSized(t *testing.T, w Workload, s BlockSizes) ([]IORecord, Workload) {
	t.Helper()
	rec := &ioLog{}
	if w.IOEngine == "" {
		w.IOEngine = EngineNull
	}
	w.Name, w.IODepth, w.NumJobs, w.Buffer, w.Log = "s", max(1, w.IODepth), 1, Buffer{Kind: BufferRandom}, rec
	if w.Seed == 0 {
		w.Seed = 3
	}
	if w.Size == 0 {
		w.Size = 1 << 20
	}
	s.Apply(&w)
	if _, err := RunPlan(context.Background(), Plan{Groups: []Group{{w}}}); err != nil {
		t.Fatal(err)
	}
	return *rec.got, w
}

func sizesOf(rs []IORecord) map[int]map[int]int {
	out := map[int]map[int]int{}
	for _, r := range rs {
		if out[r.Dir] == nil {
			out[r.Dir] = map[int]int{}
		}
		out[r.Dir][r.Bytes]++
	}
	return out
}

// coverage says whether the I/Os cover [0, size) once each: no byte
// twice, none left out.
func coverage(rs []IORecord, size int64) (overlap, missing int64) {
	sorted := slices.Clone(rs)
	slices.SortFunc(sorted, func(a, b IORecord) int { return int(a.Offset - b.Offset) })
	var end int64
	for _, r := range sorted {
		if r.Offset < end {
			overlap += min(end, r.Offset+int64(r.Bytes)) - r.Offset
		} else {
			missing += r.Offset - end
		}
		end = max(end, r.Offset+int64(r.Bytes))
	}
	return overlap, missing + max(0, size-end)
}

func split3(s ...SizeShare) BlockSizes {
	lo, hi := s[0].Size, s[0].Size
	for _, e := range s {
		lo, hi = min(lo, e.Size), max(hi, e.Size)
	}
	d := DirSizes{Min: lo, Max: hi, Split: s}
	return BlockSizes{Dirs: [3]DirSizes{d, d, d}}
}

// TestSizedPasses: what a pass with sizes that vary issues, as fio's
// do_io ends it: a sequential pass covers the region end to end; a random
// one with the map covers it once, I/Os cut at used blocks; without the
// map it stops at the first I/O that reaches the region's size (more
// bytes than that); loops= passes again.
func TestSizedPasses(t *testing.T) {
	iometer := split3(SizeShare{Size: 4 * kib, Pct: 10}, SizeShare{Size: 64 * kib, Pct: 50}, SizeShare{Size: 32 * kib, Pct: 40})
	const size = 4 << 20
	t.Run("sequential covers the region in order", func(t *testing.T) {
		rs, _ := runSized(t, Workload{RW: Read, Size: size}, iometer)
		var at int64
		for i, r := range rs {
			if r.Offset != at {
				t.Fatalf("I/O %d at %d, want %d: sequential", i, r.Offset, at)
			}
			at += int64(r.Bytes)
		}
		if at != size {
			t.Errorf("pass ended at %d, want %d", at, size)
		}
		if len(sizesOf(rs)[dirRead]) != 3 {
			t.Errorf("sizes %v, want the split's three", sizesOf(rs))
		}
	})
	t.Run("random map covers the region once", func(t *testing.T) {
		rs, _ := runSized(t, Workload{RW: RandRead, Size: size, RandomMap: true}, iometer)
		if o, m := coverage(rs, size); o != 0 || m != 0 {
			t.Errorf("%d bytes read twice, %d not read: the map covers the region once", o, m)
		}
		cut := 0
		for _, r := range rs {
			if r.Offset%(4*kib) != 0 || r.Bytes%int(4*kib) != 0 {
				t.Fatalf("I/O of %d at %d: off the 4k grid", r.Bytes, r.Offset)
			}
			if r.Bytes != int(4*kib) && r.Bytes != int(32*kib) && r.Bytes != int(64*kib) {
				cut++
			}
		}
		if cut == 0 {
			t.Errorf("no I/O cut at a used block: fio's map cuts them (mark_random_map)")
		}
	})
	t.Run("no map: the last I/O passes the size", func(t *testing.T) {
		rs, _ := runSized(t, Workload{RW: RandRead, Size: size}, iometer)
		var bytes int64
		for _, r := range rs {
			bytes += int64(r.Bytes)
		}
		if last := int64(rs[len(rs)-1].Bytes); bytes < size || bytes-last >= size {
			t.Errorf("%d bytes, the last I/O %d: want the I/O that reaches %d to be the last", bytes, last, size)
		}
		if o, _ := coverage(rs, size); o == 0 {
			t.Errorf("no block read twice: draws without the map repeat blocks")
		}
	})
	t.Run("loops=2: two passes", func(t *testing.T) {
		rs, _ := runSized(t, Workload{RW: RandWrite, Size: size, RandomMap: true, Loops: 2}, iometer)
		var bytes int64
		for _, r := range rs {
			bytes += int64(r.Bytes)
		}
		if o, m := coverage(rs, size); bytes != 2*size || o != size || m != 0 {
			t.Errorf("%d bytes, %d twice, %d never: want every byte twice", bytes, o, m)
		}
	})
	t.Run("time_based goes on past a pass", func(t *testing.T) {
		rs, _ := runSized(t, Workload{RW: RandRead, Size: 256 * kib, RandomMap: true, TimeBased: true, Runtime: 30 * time.Millisecond}, iometer)
		var bytes int64
		for _, r := range rs {
			bytes += int64(r.Bytes)
		}
		if bytes <= 2*256*kib {
			t.Errorf("%d bytes in 30ms of a 256k region: want pass after pass", bytes)
		}
	})
	t.Run("a size per direction", func(t *testing.T) {
		s := BlockSizes{Dirs: [3]DirSizes{{Min: 4 * kib, Max: 4 * kib}, {Min: 8 * kib, Max: 8 * kib}, {Min: 8 * kib, Max: 8 * kib}}}
		rs, _ := runSized(t, Workload{RW: ReadWrite, RWMixRead: 50, Size: size}, s)
		var at [2]int64
		var bytes int64
		for i, r := range rs {
			if want := [2]int{int(4 * kib), int(8 * kib)}[r.Dir]; r.Bytes != want || r.Offset != at[r.Dir] {
				t.Fatalf("I/O %d: dir %d, %d bytes at %d; want %d at %d (each direction in sequence on its own)", i, r.Dir, r.Bytes, r.Offset, want, at[r.Dir])
			}
			at[r.Dir] += int64(r.Bytes)
			bytes += int64(r.Bytes)
		}
		if bytes != size || at[0] == 0 || at[1] == 0 {
			t.Errorf("%d bytes (reads to %d, writes to %d), want %d both ways", bytes, at[0], at[1], size)
		}
	})
	t.Run("blockalign: random offsets on its grid, the map off", func(t *testing.T) {
		d := DirSizes{Min: 8 * kib, Max: 32 * kib, Align: 4 * kib}
		s := BlockSizes{Dirs: [3]DirSizes{d, d, d}, Unaligned: true}
		rs, _ := runSized(t, Workload{RW: RandRead, Size: size, RandomMap: true}, s)
		odd, half := 0, 0
		for _, r := range rs {
			if r.Offset%(4*kib) != 0 {
				t.Fatalf("offset %d off the 4k grid", r.Offset)
			}
			if r.Offset%(8*kib) != 0 {
				half++
			}
			if r.Bytes%int(4*kib) != 0 {
				odd++
			}
		}
		if odd == 0 || half == 0 {
			t.Errorf("%d sizes off 4k, %d offsets off 8k: bs_unaligned keeps a drawn size, blockalign=4k places I/Os of 8k and more on 4k", odd, half)
		}
		if o, _ := coverage(rs, size); o == 0 {
			t.Errorf("no byte read twice: fio turns its map off at a blockalign other than the smallest size")
		}
	})
	t.Run("zoned, as jesd219.fio: the zones' shares of the I/Os on the blockalign grid", func(t *testing.T) {
		d := DirSizes{Min: 512, Max: 64 * kib, Align: 4 * kib, Split: []SizeShare{{Size: 512, Pct: 10}, {Size: 4 * kib, Pct: 60}, {Size: 16 * kib, Pct: 20}, {Size: 64 * kib, Pct: 10}}}
		dist := Distribution{Kind: DistZoned, Zones: [2][]DistZone{{{AccessPct: 50, SizePct: 5}, {AccessPct: 30, SizePct: 15}, {AccessPct: 20, SizePct: 80}}, {{AccessPct: 50, SizePct: 5}, {AccessPct: 30, SizePct: 15}, {AccessPct: 20, SizePct: 80}}}}
		rs, _ := runSized(t, Workload{RW: RandRW, RWMixRead: 40, Size: 64 << 20, Distribution: dist}, BlockSizes{Dirs: [3]DirSizes{d, d, d}})
		var first, next int
		for _, r := range rs {
			if r.Offset%(4*kib) != 0 {
				t.Fatalf("offset %d off the 4k grid", r.Offset)
			}
			switch {
			case r.Offset < 64<<20*5/100:
				first++
			case r.Offset < 64<<20*20/100:
				next++
			}
		}
		if f, n := float64(first)/float64(len(rs)), float64(next)/float64(len(rs)); math.Abs(f-0.5) > 0.03 || math.Abs(n-0.3) > 0.03 {
			t.Errorf("%.1f%% of %d I/Os in the first 5%%, %.1f%% in the next 15%%; want 50 and 30", 100*f, len(rs), 100*n)
		}
	})
	t.Run("bs_is_seq_rand: random I/Os take the write sizes", func(t *testing.T) {
		s := BlockSizes{Dirs: [3]DirSizes{{Min: 4 * kib, Max: 4 * kib}, {Min: 16 * kib, Max: 16 * kib}, {Min: 4 * kib, Max: 4 * kib}}, SeqRand: true}
		rs, _ := runSized(t, Workload{RW: RandRead, Size: size, RandomMap: true}, s)
		sz := sizesOf(rs)[dirRead]
		if sz[int(16*kib)] == 0 || len(sz) < 2 {
			t.Errorf("read sizes %v: want 16k reads, cut to 4k blocks by the map (the reads' smallest size)", sz)
		}
	})
}

// TestSizedMapQuirk: fio's map has a block per smallest size of all three
// directions, and a direction of larger blocks indexes it in its own
// units: rw=randwrite bs=4k,8k finds a used block with no free one after
// it in the half the writes use, moves past the region and ends the job
// before its size, as fio 3.33 does (3625 of 8192 writes on 64m).
func TestSizedMapQuirk(t *testing.T) {
	s := BlockSizes{Dirs: [3]DirSizes{{Min: 4 * kib, Max: 4 * kib}, {Min: 8 * kib, Max: 8 * kib}, {Min: 8 * kib, Max: 8 * kib}}}
	const size = 16 << 20
	rs, w := runSized(t, Workload{RW: RandWrite, Size: size, RandomMap: true}, s)
	if w.Sizes == nil {
		t.Fatal("bs=4k,8k with randwrite ran as one size: the reads' 4k sizes fio's map")
	}
	if n := int64(len(rs)); n >= size/(8*kib) || n < 16 {
		t.Errorf("%d writes: want fewer than the %d of the region (the pass ends at the half the writes index)", n, size/(8*kib))
	}
	for _, r := range rs {
		if r.Bytes != int(8*kib) || r.Offset%(8*kib) != 0 {
			t.Fatalf("write of %d at %d", r.Bytes, r.Offset)
		}
	}
}

// TestBlockSizesApply: sizes that come down to one run as BS alone, on
// fioPattern; the rest keep their sizes and the largest as BS.
func TestBlockSizesApply(t *testing.T) {
	fixed := func(r, w, tr int64) BlockSizes {
		return BlockSizes{Dirs: [3]DirSizes{{Min: r, Max: r}, {Min: w, Max: w}, {Min: tr, Max: tr}}}
	}
	cases := []struct {
		name   string
		s      BlockSizes
		rw     RW
		sized  bool
		wantBS int64
	}{
		{"one size", Fixed(8 * kib), RandRW, false, 8 * kib},
		{"a read job with bs=4k,8k reads 4k", fixed(4*kib, 8*kib, 8*kib), Read, false, 4 * kib},
		{"a random read job with bs=4k,8k: the map is the reads'", fixed(4*kib, 8*kib, 8*kib), RandRead, true, 4 * kib},
		{"a random write job with bs=4k,8k: the map is 4k", fixed(4*kib, 8*kib, 8*kib), RandWrite, true, 8 * kib},
		{"mixed", fixed(4*kib, 8*kib, 8*kib), ReadWrite, true, 8 * kib},
		{"trim takes the third", fixed(4*kib, 4*kib, 16*kib), Trim, false, 16 * kib},
		{"a range", BlockSizes{Dirs: [3]DirSizes{{Min: kib, Max: 4 * kib}, {Min: kib, Max: 4 * kib}, {Min: kib, Max: 4 * kib}}}, RandRead, true, 4 * kib},
		{"blockalign on a random job", BlockSizes{Dirs: [3]DirSizes{{Min: 8 * kib, Max: 8 * kib, Align: 4 * kib}, {Min: 8 * kib, Max: 8 * kib}, {Min: 8 * kib, Max: 8 * kib}}}, RandRead, true, 8 * kib},
		{"blockalign on a sequential job does nothing", BlockSizes{Dirs: [3]DirSizes{{Min: 8 * kib, Max: 8 * kib, Align: 4 * kib}, {Min: 8 * kib, Max: 8 * kib}, {Min: 8 * kib, Max: 8 * kib}}}, Read, false, 8 * kib},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := Workload{RW: c.rw}
			c.s.Apply(&w)
			if (w.Sizes != nil) != c.sized || w.BS != c.wantBS {
				t.Errorf("Sizes set %v, BS %d; want %v, %d", w.Sizes != nil, w.BS, c.sized, c.wantBS)
			}
		})
	}
}

// TestBlockSizesRefusals: fio's own rules for the sizes, and what clyde
// does not run with them.
func TestBlockSizesRefusals(t *testing.T) {
	rng := func(lo, hi int64) BlockSizes {
		d := DirSizes{Min: lo, Max: hi}
		return BlockSizes{Dirs: [3]DirSizes{d, d, d}}
	}
	for _, c := range []struct {
		name string
		s    BlockSizes
		edit func(w *Workload)
		want string
	}{
		{"shares past 100 with two without", split3(SizeShare{Size: 4 * kib, Pct: 80}, SizeShare{Size: 8 * kib, Pct: 30}, SizeShare{Size: 16 * kib, Pct: NoPct}, SizeShare{Size: 32 * kib, Pct: NoPct}), nil, "more than 100"},
		{"past 100 with one without a share is fio's (it wraps)", split3(SizeShare{Size: 4 * kib, Pct: 80}, SizeShare{Size: 8 * kib, Pct: 30}, SizeShare{Size: 16 * kib, Pct: NoPct}), nil, ""},
		{"a share out of range", split3(SizeShare{Size: 4 * kib, Pct: 101}, SizeShare{Size: 8 * kib, Pct: 1}), nil, "outside 1..100"},
		{"region below the smallest size", rng(64*kib, 128*kib), func(w *Workload) { w.Size = 32 * kib }, "smaller than the smallest"},
		{"direct with sizes off 512", rng(1000, 4000), func(w *Workload) { w.Direct = true }, "--direct"},
		{"direct with bs_unaligned", BlockSizes{Dirs: rng(4*kib, 16*kib).Dirs, Unaligned: true}, func(w *Workload) { w.Direct = true }, "bs_unaligned"},
		{"direct with a blockalign off 512", BlockSizes{Dirs: [3]DirSizes{{Min: 4 * kib, Max: 8 * kib, Align: 1000}, {Min: 4 * kib, Max: 8 * kib}, {Min: 4 * kib, Max: 8 * kib}}},
			func(w *Workload) { w.Direct, w.RW = true, RandRead }, "blockalign"},
		{"verify without the map", rng(4*kib, 16*kib), func(w *Workload) { w.Verify, w.RW = VerifyCRC32C, RandWrite }, "norandommap"},
		{"verify with bs_unaligned", BlockSizes{Dirs: rng(4*kib, 16*kib).Dirs, Unaligned: true}, func(w *Workload) { w.Verify, w.RW = VerifyCRC32C, Write }, "bs_unaligned"},
		{"verify in sequence is fine", rng(4*kib, 16*kib), func(w *Workload) { w.Verify, w.RW = VerifyCRC32C, Write }, ""},
		{"a verify interval below the header", rng(32, 4*kib), func(w *Workload) { w.Verify, w.RW = VerifyMD5, Write }, "header"},
		{"zones", rng(4*kib, 16*kib), func(w *Workload) { w.Zones = StridedZones{Size: 256 * kib} }, "zone"},
		{"a run per draw", rng(4*kib, 16*kib), func(w *Workload) { w.RW, w.SeqRepeat = RandRead, 4 }, "rw=MODE:N"},
		{"trimwrite", rng(4*kib, 16*kib), func(w *Workload) { w.RW = TrimWrite }, "trims and then writes"},
		{"a size past what clyde issues", rng(4*kib, 1<<32), nil, "larger than one I/O"},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := Workload{Name: "s", Filename: "f", RW: RandRW, RWMixRead: 50, Size: 1 << 20, IODepth: 1, NumJobs: 1,
				IOEngine: EnginePsync, Buffer: Buffer{Kind: BufferRandom}}
			if c.edit != nil {
				c.edit(&w)
			}
			c.s.Apply(&w)
			err := w.validate()
			switch {
			case c.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Errorf("%v, want a refusal saying %q", err, c.want)
			}
		})
	}
}

// TestSizedQueued: a queueing engine, which counts an I/O when it submits
// it, issues a pass that ends where fio's does, its bytes the region's.
func TestSizedQueued(t *testing.T) {
	qs := queueingEngines()
	if len(qs) == 0 {
		clydetest.Skip(t, "a queueing engine is not supported on this platform")
	}
	const size = 1 << 20
	rs, _ := runSized(t, Workload{RW: RandWrite, Size: size, RandomMap: true, IODepth: 8, IOEngine: Engine(qs[0]),
		Filename: filepath.Join(t.TempDir(), "f")}, split3(SizeShare{Size: 4 * kib, Pct: 50}, SizeShare{Size: 64 * kib, Pct: 50}))
	if o, m := coverage(rs, size); o != 0 || m != 0 {
		t.Errorf("%s: %d bytes twice, %d never: the map covers the region once", qs[0], o, m)
	}
}

// TestVerifySizes: with write sizes that vary, every write carries a
// header per verify_interval (its smallest size, fio's default), the
// verify pass reads each write back whole, as fio reads each io_piece,
// and a damaged block inside a large write is found at its own offset.
func TestVerifySizes(t *testing.T) {
	s := split3(SizeShare{Size: 4 * kib, Pct: 50}, SizeShare{Size: 16 * kib, Pct: 50})
	for _, c := range []struct {
		name   string
		rw     RW
		damage bool
	}{{"sequential", Write, false}, {"random, the map", RandWrite, false}, {"damaged", Write, true}} {
		t.Run(c.name, func(t *testing.T) {
			w := verifyWorkload(t, VerifyCRC32C)
			w.RW, w.Size = c.rw, 1<<20
			s.Apply(&w)
			var bigAt int64 = -1
			rec := &ioLog{}
			w.Log = rec
			if c.damage {
				withBeforeVerify(t, func(t *testing.T, h osio.File) {
					for _, r := range *rec.got {
						if r.Dir == dirWrite && r.Bytes == int(16*kib) {
							bigAt = r.Offset
							break
						}
					}
					b := pread(t, h, bigAt+2*verifyBS)
					b[100] ^= 1
					pwrite(t, h, b, bigAt+2*verifyBS)
				})
			}
			res, err := RunPlan(context.Background(), Plan{Groups: []Group{{w}}, Shape: fioShape})
			if c.damage {
				var ve *VerifyError
				if !errors.As(err, &ve) || ve.Bad != 1 || !strings.Contains(ve.Lines[0], fmt.Sprintf("verify failed at offset %d, length 4096", bigAt+2*verifyBS)) {
					t.Fatalf("%v: want the third block of the 16k write at %d named", err, bigAt)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			j := res.Jobs[0]
			if j.Write.IOBytes != w.Size || j.Read.IOBytes != w.Size || j.Read.TotalIOs != j.Write.TotalIOs {
				t.Errorf("wrote %d bytes in %d, read %d in %d: want every write read back whole", j.Write.IOBytes, j.Write.TotalIOs, j.Read.IOBytes, j.Read.TotalIOs)
			}
			reads := map[int]int{}
			for _, r := range *rec.got {
				if r.Dir == dirRead {
					reads[r.Bytes]++
				}
			}
			if reads[int(16*kib)] == 0 && c.rw == Write {
				t.Errorf("read sizes %v: want 16k writes read back as 16k", reads)
			}
		})
	}
}

// TestSizedPassEnds: where fio's do_io ends a pass of rw=rw with sizes
// that vary and loops=2 (16m, bssplit=512/50:1M/50; fio 3.33 with
// ioengine=null: 1962 reads and 2063 writes at iodepth 1, 38 and 40 at
// iodepth 4): an engine that returns FIO_Q_COMPLETED counts no bytes
// for the pass, which goes on until a direction reaches the end, its
// last megabyte in 512-byte I/Os; one that queues ends the pass at the
// size.
func TestSizedPassEnds(t *testing.T) {
	s := split3(SizeShare{Size: 512, Pct: 50}, SizeShare{Size: 1 << 20, Pct: 50})
	for _, c := range []struct {
		depth      int
		minN, maxN int
	}{{1, 2000, 6000}, {4, 40, 400}} {
		rs, _ := runSized(t, Workload{RW: ReadWrite, RWMixRead: 50, Size: 16 << 20, Loops: 2, IODepth: c.depth}, s)
		var bytes int64
		for _, r := range rs {
			bytes += int64(r.Bytes)
		}
		if len(rs) < c.minN || len(rs) > c.maxN || bytes < 32<<20 || bytes >= 32<<20+1<<20 {
			t.Errorf("iodepth %d: %d I/Os of %d bytes; want %d to %d, 32m up to one more I/O", c.depth, len(rs), bytes, c.minN, c.maxN)
		}
	}
}

// BenchmarkPatternNext is the cost of drawing one I/O: one block size
// (fioPattern, what a fixed-size job runs, untouched by sizes that vary),
// and sizes drawn per I/O (sizedPattern), with and without fio's random
// map. Time-based, so the pattern never runs out.
func BenchmarkPatternNext(b *testing.B) {
	iometer := split3(SizeShare{Size: 512, Pct: 10}, SizeShare{Size: kib, Pct: 5}, SizeShare{Size: 2 * kib, Pct: 5}, SizeShare{Size: 4 * kib, Pct: 60}, SizeShare{Size: 8 * kib, Pct: 2},
		SizeShare{Size: 16 * kib, Pct: 4}, SizeShare{Size: 32 * kib, Pct: 4}, SizeShare{Size: 64 * kib, Pct: 10})
	for _, c := range []struct {
		name  string
		rw    RW
		sizes *BlockSizes
		map_  bool
	}{
		{"fixed-4k", RandRead, nil, false},
		{"fixed-4k-map", RandRead, nil, true},
		{"bssplit", RandRead, &iometer, false},
		{"bssplit-map", RandRead, &iometer, true},
		{"bs=4k,8k-rw", ReadWrite, &BlockSizes{Dirs: [3]DirSizes{{Min: 4 * kib, Max: 4 * kib}, {Min: 8 * kib, Max: 8 * kib}, {Min: 8 * kib, Max: 8 * kib}}}, false},
	} {
		b.Run(c.name, func(b *testing.B) {
			e, _ := engineByName(EngineNull)
			wl := &workload{Workload: Workload{RW: c.rw, RWMixRead: 50, BS: 4096, Size: 256 << 20, IODepth: 1, NumJobs: 1, IOEngine: EngineNull,
				Seed: 1, Runtime: time.Minute, TimeBased: true, RandomMap: c.map_, Buffer: Buffer{Kind: BufferRandom}}, engine: e, depth: 1, firstWorker: 1}
			if c.sizes != nil {
				c.sizes.Apply(&wl.Workload)
			}
			w := newWorker(wl, 0)
			var sum int64
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				_, off, size := w.pattern.next(w)
				sum += off + int64(size)
			}
			if sum == 0 {
				b.Fatal("no I/O drawn")
			}
		})
	}
}

// TestSizedRamp: the measured part of a size-based job with a ramp moves
// its whole size, as fioPattern's whole I/O count restarts at the ramp's
// end: the I/Os of the ramp do not count.
func TestSizedRamp(t *testing.T) {
	const size = 16 << 30
	s := split3(SizeShare{Size: 4 * kib, Pct: 50}, SizeShare{Size: 64 * kib, Pct: 50})
	w := Workload{Name: "ramp", RW: RandRead, Size: size, IODepth: 1, NumJobs: 1, IOEngine: EngineNull, Buffer: Buffer{Kind: BufferRandom},
		Seed: 3, RampTime: 20 * time.Millisecond}
	s.Apply(&w)
	res, err := RunPlan(context.Background(), Plan{Groups: []Group{{w}}})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Jobs[0].Read.IOBytes; got < size || got >= size+64*kib {
		t.Errorf("%d bytes measured after the ramp, want %d up to one more I/O", got, int64(size))
	}
}

// TestSizedIOSize: io_size= with sizes drawn per I/O moves io_size bytes
// in as many passes as it takes, the last one cut there, as fio 3.33
// does (16m, bssplit=4k/50:64k/50, io_size=40m: 41963520 bytes).
func TestSizedIOSize(t *testing.T) {
	for _, rw := range []RW{Read, RandRead} {
		rs, _ := runSized(t, Workload{RW: rw, Size: 16 << 20, RandomMap: true, Region: RegionSpec{IOSize: 40 << 20}},
			split3(SizeShare{Size: 4 * kib, Pct: 50}, SizeShare{Size: 64 * kib, Pct: 50}))
		var bytes int64
		for _, r := range rs {
			bytes += int64(r.Bytes)
		}
		if bytes < 40<<20 || bytes >= 40<<20+64*kib {
			t.Errorf("%s: %d bytes, want io_size 40m up to one more I/O", rw, bytes)
		}
	}
}

// TestPlaceSizes: a region's share (offset=10%, size=30%) with sizes that
// vary is cut to fio's td_min_bs, the smallest size of any direction, not
// to the largest (BS).
func TestPlaceSizes(t *testing.T) {
	w := Workload{Size: 64 * kib, Region: RegionSpec{OffsetPercent: 10}}
	d := DirSizes{Min: kib, Max: 64 * kib}
	w.Sizes, w.BS = &BlockSizes{Dirs: [3]DirSizes{d, d, d}}, 64*kib
	if off, _ := w.place(1 << 20); off != 105472 {
		t.Errorf("offset=10%% of 1m at %d, want 105472 (104857 rounded up to 1k)", off)
	}
	w.Region = RegionSpec{SizePercent: 30}
	if _, sz := w.place(1 << 20); sz != 314368 {
		t.Errorf("size=30%% of 1m is %d, want 314368 (314572 cut to 1k)", sz)
	}
}
