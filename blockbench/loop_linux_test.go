//go:build linux

package blockbench

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/clydebench/clyde/internal/clydetest"
	"github.com/clydebench/clyde/internal/ioengine"
	"github.com/clydebench/clyde/internal/osio"
)

// counts is a countHist's non-zero slots.
func counts(h countHist) map[int]int64 {
	m := map[int]int64{}
	for n, c := range h {
		if c != 0 {
			m[n] = c
		}
	}
	return m
}

// runBatchPass runs one pass of random reads over a pattern file of blocks
// blocks on engine with the workload's batching knobs set by knobs, on a
// goroutine of its own (io_uring binds its ring to the thread), and
// checks every slot is free again after it.
func runBatchPass(t *testing.T, path string, blocks int64, depth int, direct bool, e engine, knobs func(*Workload)) *worker {
	t.Helper()
	if err := e.available(); err != nil {
		clydetest.Skipf(t, "%s not available here: %v", e.name(), err)
	}
	flags := osio.ReadOnly
	if direct {
		flags |= osio.Direct
	}
	h, err := osio.OpenFile(path, flags)
	if err != nil {
		t.Fatal(err)
	}
	wl := &workload{Workload: Workload{RW: RandRead, BS: libaioTestBS, Size: blocks * libaioTestBS, IODepth: depth,
		NumJobs: 1, Buffer: Buffer{Kind: BufferRandom}, Seed: 7, RandomMap: true, Direct: direct, IOEngine: e.name()}}
	knobs(&wl.Workload)
	if err := wl.validateBatch(); err != nil {
		t.Fatal(err)
	}
	wl.engine, wl.depth = e, depth
	w := newWorker(wl, 0)
	w.h, w.ctx, w.base = h, context.Background(), time.Now()
	t.Cleanup(w.close)
	w.ioLimit, w.remaining = blocks, blocks
	done := make(chan struct{})
	go func() {
		defer close(done)
		l, err := e.prepare(w)
		if err != nil {
			w.fail(err)
			return
		}
		defer l.close()
		l.run(w)
		if l.taken() != 0 || l.nFree != depth || l.pN != 0 {
			w.fail(fmt.Errorf("%d taken, %d free, %d unsubmitted after the run", l.taken(), l.nFree, l.pN))
		}
	}()
	<-done
	if w.err != nil {
		t.Fatal(w.err)
	}
	if w.ios[dirRead] != blocks {
		t.Fatalf("%d reads, want %d", w.ios[dirRead], blocks)
	}
	return w
}

// TestBatchLoopCountsAsFio runs fio's batching loop on io_uring and libaio
// over 2048 blocks at iodepth 16 and checks what each submit call took,
// what each reap took and the depth each batch was counted at, I/O for
// I/O: with iodepth_batch_complete_min equal to its max every count is
// fixed by the loop, whatever the device's timing. The wanted counts are
// fio 3.33's own (run with the same options on a file, --output-format=json:
// every iodepth_submit, iodepth_complete and iodepth_level percentage
// matches these counts binned). The odd submit sizes of 8/3 come from
// td_io_getevents committing without clearing td->io_u_queued; libaio
// splits nothing here, its ring of iodepth entries wrapping on batch
// edges.
func TestBatchLoopCountsAsFio(t *testing.T) {
	const blocks, depth = 2048, 16
	type want struct{ submitted, reaped, depth map[int]int64 }
	cases := []struct {
		name  string
		knobs func(*Workload)
		want  want
	}{
		{"submit 8 complete 4", func(w *Workload) { w.SubmitBatch, w.ReapMin = 8, 4 },
			want{map[int]int64{8: 2, 4: 508}, map[int]int64{4: 509, 12: 1}, map[int]int64{8: 8, 16: 2040}}},
		{"submit 8 complete 8", func(w *Workload) { w.SubmitBatch, w.ReapMin = 8, 8 },
			want{map[int]int64{8: 256}, map[int]int64{8: 256}, map[int]int64{8: 8, 16: 2040}}},
		{"submit 8 complete 3", func(w *Workload) { w.SubmitBatch, w.ReapMin = 8, 3 },
			want{map[int]int64{1: 170, 2: 169, 3: 508, 8: 2}, map[int]int64{3: 678, 14: 1}, map[int]int64{8: 8, 14: 680, 15: 680, 16: 680}}},
		{"submit 8 low 4", func(w *Workload) { w.SubmitBatch, w.LowWater = 8, 4 },
			want{map[int]int64{4: 170, 8: 171}, map[int]int64{1: 2040, 8: 1}, map[int]int64{8: 688, 12: 680, 16: 680}}},
		{"submit 16 complete 16", func(w *Workload) { w.SubmitBatch, w.ReapMin = 16, 16 },
			want{map[int]int64{16: 128}, map[int]int64{16: 128}, map[int]int64{16: 2048}}},
		// fio's iodepth_batch_complete_min=0 with complete_max 0 reaps
		// after every submission and spins until one is there: depth 1.
		{"poll", func(w *Workload) { w.ReapPoll = true },
			want{map[int]int64{1: 2048}, map[int]int64{1: 2048}, map[int]int64{1: 2048}}},
	}
	for _, e := range []engine{mustEngine(EngineIOUring), mustEngine(EngineLibaio)} {
		for _, direct := range []bool{false, true} {
			name := string(e.name()) + map[bool]string{false: "/buffered", true: "/direct"}[direct]
			t.Run(name, func(t *testing.T) {
				dir := shmDir
				if direct {
					dir = directDir
				}
				path := patternFile(t, dir(t), blocks)
				for _, c := range cases {
					t.Run(c.name, func(t *testing.T) {
						w := runBatchPass(t, path, blocks, depth, direct, e, c.knobs)
						for _, got := range []struct {
							what string
							h    countHist
							want map[int]int64
						}{{"submit calls", w.submitted, c.want.submitted}, {"reaps", w.reaped, c.want.reaped}, {"depth", w.inflight, c.want.depth}} {
							if g := counts(got.h); !maps.Equal(g, got.want) {
								t.Errorf("%s by size %v, want fio's %v", got.what, g, got.want)
							}
						}
					})
				}
			})
		}
	}
}

// TestBatchLoopDefaultsCountSubmits checks that io_uring and libaio count
// one I/O per submit call when they do not batch, so fio's iodepth_submit
// comes from what they did.
func TestBatchLoopDefaultsCountSubmits(t *testing.T) {
	const blocks, depth = 256, 8
	path := patternFile(t, shmDir(t), blocks)
	for _, e := range []engine{mustEngine(EngineIOUring), mustEngine(EngineLibaio)} {
		t.Run(string(e.name()), func(t *testing.T) {
			w := runBatchPass(t, path, blocks, depth, false, e, func(*Workload) {})
			if g := counts(w.submitted); !maps.Equal(g, map[int]int64{1: blocks}) {
				t.Errorf("submit calls by size %v, want %d of one I/O", g, blocks)
			}
		})
	}
}

// TestValidateBatch holds the knobs to the engines that batch.
func TestValidateBatch(t *testing.T) {
	cases := []struct {
		name string
		w    Workload
		ok   bool
	}{
		{"io_uring", Workload{IOEngine: EngineIOUring, SubmitBatch: 8, ReapMin: 4, LowWater: 2}, true},
		{"libaio poll", Workload{IOEngine: EngineLibaio, ReapPoll: true}, true},
		{"defaults on psync", Workload{IOEngine: EnginePsync, SubmitBatch: 1, ReapMin: 1}, true},
		{"psync", Workload{IOEngine: EnginePsync, IODepth: 16, SubmitBatch: 8}, false},
		{"auto", Workload{IOEngine: EngineAuto, IODepth: 16, ReapMin: 2}, false},
		{"a low-water mark at the depth is no batching", Workload{IOEngine: EnginePsync, IODepth: 16, LowWater: 16}, true},
		{"negative", Workload{IOEngine: EngineLibaio, LowWater: -1}, false},
		{"poll with a min", Workload{IOEngine: EngineLibaio, ReapPoll: true, ReapMin: 2}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if err := c.w.validateBatch(); (err == nil) != c.ok {
				t.Errorf("validateBatch: %v, want ok %v", err, c.ok)
			}
		})
	}
}

// unitAt is the unit the loop last set up for an I/O of direction slot dir
// at off, or -1: a unit just reaped keeps its buffer until the next I/O is
// drawn into it, so the record hook can look at what it moved.
func (l *ioLoop) unitAt(dir int, off int64) int {
	for i := range l.units {
		if l.units[i].Off == off && l.state[i].dir == dir {
			return i
		}
	}
	return -1
}

// capEngine is an engine whose kernel holds at most capacity units in
// flight, as an AIO context of that size: a commit while it is full is
// refused with ErrAgain, as io_submit refuses it.
type capEngine struct {
	ioengine.Engine
	capacity, inflight, refused int
}

func (c *capEngine) Commit() (int, error) {
	if c.inflight >= c.capacity {
		c.refused++
		return 0, ioengine.ErrAgain
	}
	n, err := c.Engine.Commit()
	c.inflight += n
	return n, err
}

func (c *capEngine) GetEvents(min, max int) (int, error) {
	n, err := c.Engine.GetEvents(min, max)
	c.inflight -= n
	return n, err
}

// bytesWatch is what a pass's completions moved, seen through the record
// hook: each write's bytes by offset, and each read that did not get its
// block of a patternFile (or whose unit was not found).
type bytesWatch struct {
	written map[int64][]byte
	bad     []string
}

// watchBytes records what each completion of w's loop l moved. The unit
// is free again when the hook sees it, but its buffer is untouched until
// the next I/O is drawn into it.
func watchBytes(w *worker, l *ioLoop) *bytesWatch {
	b := &bytesWatch{written: map[int64][]byte{}}
	w.record(observeFunc(func(r IORecord) {
		dir, n, off := r.Dir, r.Bytes, r.Offset
		i := l.unitAt(dir, off)
		switch {
		case i < 0:
			b.bad = append(b.bad, "no unit for the completion at "+strconv.FormatInt(off, 10))
		case dir == dirWrite:
			b.written[off] = bytes.Clone(l.units[i].Buf[:n])
		case !bytes.Equal(l.units[i].Buf[:n], blockPattern(off/libaioTestBS)):
			b.bad = append(b.bad, "read at "+strconv.FormatInt(off, 10))
		}
	}), true)
	return b
}

// checkFile holds the file at path, of blocks blocks, to its pattern with
// the writes seen over it: each landed at its offset and nowhere else.
func (b *bytesWatch) checkFile(t *testing.T, path string, blocks int64) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for i := range blocks {
		want := blockPattern(i)
		if w, ok := b.written[i*libaioTestBS]; ok {
			want = w
		}
		if !bytes.Equal(data[i*libaioTestBS:(i+1)*libaioTestBS], want) {
			t.Fatalf("block %d holds the wrong bytes (written: %v)", i, b.written[i*libaioTestBS] != nil)
		}
	}
}
