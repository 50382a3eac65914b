//go:build linux

package blockbench

import (
	"bytes"
	"context"
	"errors"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/clydebench/clyde/internal/ioengine"
	"github.com/clydebench/clyde/internal/osio"
	"github.com/clydebench/clyde/result"
)

// mmapWorker is a worker of wl on the file at path, opened as the runner
// opens it, with its mmap loop prepared.
func mmapWorker(t *testing.T, path string, wl *workload, flags osio.Flag) (*worker, *ioLoop) {
	t.Helper()
	if wl.Direct {
		flags |= osio.Direct
	}
	h, err := osio.OpenFile(path, flags)
	if err != nil {
		t.Fatal(err)
	}
	e := mustEngine(EngineMmap)
	wl.engine, wl.IOEngine, wl.depth = e, EngineMmap, 1
	w := newWorker(wl, 0)
	w.h, w.ctx, w.base = h, context.Background(), time.Now()
	t.Cleanup(w.close)
	l, err := e.prepare(w)
	if err != nil {
		t.Fatal(err)
	}
	w.loop = l
	return w, l
}

// TestMmapMovesTheRightBytes runs one pass of random reads and writes
// through the map, each block once, buffered and with direct=1 (msync
// after each I/O), and checks every read got the bytes at its offset and
// every write reached the file there and nowhere else (the partial map,
// each I/O mapping its own range, is internal/ioengine's
// TestMmapMapsWholeOrPartial). A sync engine: every I/O is counted at
// depth 1, none in a reap, no slat.
func TestMmapMovesTheRightBytes(t *testing.T) {
	const blocks = 256
	for _, c := range []struct {
		name   string
		direct bool
	}{{"buffered", false}, {"direct", true}} {
		t.Run(c.name, func(t *testing.T) {
			path := patternFile(t, t.TempDir(), blocks)
			wl := &workload{Workload: Workload{RW: RandRW, RWMixRead: 50, BS: libaioTestBS, Size: blocks * libaioTestBS, IODepth: 1,
				NumJobs: 1, Buffer: Buffer{Kind: BufferRandom}, Seed: 7, RandomMap: true, Direct: c.direct, FadviseHint: true}}
			w, m := mmapWorker(t, path, wl, osio.ReadWrite)
			w.ioLimit, w.remaining = blocks, blocks
			// The buffers are filled once (no refill): every write writes
			// this, whatever the reads between brought in.
			wrote := bytes.Clone(m.wbuf[0][:libaioTestBS])
			written := map[int64][]byte{}
			var bad []string
			w.record(observeFunc(func(r IORecord) {
				dir, n, off := r.Dir, r.Bytes, r.Offset
				if dir == dirWrite {
					written[off] = wrote
				} else if !bytes.Equal(m.rbuf[0][:n], blockPattern(off/libaioTestBS)) {
					bad = append(bad, "read at "+strconv.FormatInt(off, 10))
				}
			}), true)
			m.run(w)
			if w.err != nil {
				t.Fatal(w.err)
			}
			if w.ios[dirRead]+w.ios[dirWrite] != blocks || w.ios[dirRead] == 0 || w.ios[dirWrite] == 0 {
				t.Fatalf("%d reads, %d writes, want %d I/Os of both", w.ios[dirRead], w.ios[dirWrite], blocks)
			}
			if len(bad) > 0 {
				t.Fatalf("%d reads got the wrong bytes, first: %s", len(bad), bad[0])
			}
			if err := w.fileSync(false); err != nil {
				t.Fatal(err)
			}
			w.close()
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			for i := range int64(blocks) {
				want := blockPattern(i)
				if b, ok := written[i*libaioTestBS]; ok {
					want = b
				}
				if !bytes.Equal(data[i*libaioTestBS:(i+1)*libaioTestBS], want) {
					t.Fatalf("block %d holds the wrong bytes (written: %v)", i, written[i*libaioTestBS] != nil)
				}
			}
			if w.split || w.inflight.total() != 0 || w.reaped.total() != 0 {
				t.Errorf("split %v, depth %v, reaps %v: mmap is synchronous, as fio's psync", w.split, w.fioDepth(), w.fioReaps())
			}
		})
	}
}

// TestEngineConfigDirections is fio_mmap_file's choice of protection for a
// job, as the directions the engine is opened for (internal/ioengine's
// TestMmapProtection turns them into the protection): a write job with
// verify reads its blocks back.
func TestEngineConfigDirections(t *testing.T) {
	for _, c := range []struct {
		rw            RW
		verify        VerifyKind
		reads, writes bool
	}{
		{RandRead, VerifyNone, true, false}, {Write, VerifyNone, false, true}, {Write, VerifyCRC32C, true, true}, {RandRW, VerifyNone, true, true},
	} {
		w := &worker{spec: &workload{Workload: Workload{RW: c.rw, Verify: c.verify}}}
		if got := w.engineConfig(nil); got.Reads != c.reads || got.Writes != c.writes {
			t.Errorf("%s verify %q: reads %v writes %v, want %v and %v", c.rw, c.verify, got.Reads, got.Writes, c.reads, c.writes)
		}
	}
}

// TestMmapFaultIsAnError truncates the file under a mapped run: the read
// of a page the file no longer backs is SIGBUS, which must come back as
// the worker's error, not crash the process.
func TestMmapFaultIsAnError(t *testing.T) {
	path := patternFile(t, t.TempDir(), 64)
	wl := &workload{Workload: Workload{RW: Read, BS: libaioTestBS, Size: 64 * libaioTestBS, IODepth: 1,
		NumJobs: 1, Buffer: Buffer{Kind: BufferRandom}, Seed: 3}}
	w, m := mmapWorker(t, path, wl, osio.ReadOnly)
	if err := os.Truncate(path, 0); err != nil {
		t.Fatal(err)
	}
	m.run(w)
	if !errors.Is(w.err, ioengine.ErrMmapFault) || w.ios[dirRead] != 0 {
		t.Errorf("err = %v after %d reads, want the SIGBUS as an error at the first read", w.err, w.ios[dirRead])
	}
}

// TestMmapSyncsAreMsync runs writes with fsync=4: each is msync(MS_SYNC)
// of the map, counted as fio counts fsync=; a block size off the page with
// direct=1 is refused, as fio_mmapio_init refuses it.
func TestMmapSyncsAreMsync(t *testing.T) {
	const blocks = 64
	path := patternFile(t, t.TempDir(), blocks)
	wl := &workload{Workload: Workload{RW: Write, BS: libaioTestBS, Size: blocks * libaioTestBS, IODepth: 1,
		NumJobs: 1, Buffer: Buffer{Kind: BufferRandom}, Seed: 3, Fsync: 4}}
	w, m := mmapWorker(t, path, wl, osio.ReadWrite)
	m.run(w)
	if w.err != nil {
		t.Fatal(w.err)
	}
	if w.ios[dirWrite] != blocks || w.syncs != blocks/4-1 {
		t.Errorf("%d writes, %d syncs; want %d and %d", w.ios[dirWrite], w.syncs, blocks, blocks/4-1)
	}
	check := func(w Workload) error {
		return (&workload{Workload: w, engine: mustEngine(EngineMmap)}).checkEngine()
	}
	err := check(Workload{Name: "odd", BS: 512, Direct: true})
	if !result.IsUsage(err) {
		t.Errorf("bs 512 with direct=1: err = %v, want fio's refusal as a usage error", err)
	}
	if err := check(Workload{Name: "ok", BS: 512}); err != nil {
		t.Errorf("bs 512 buffered: %v, want it run", err)
	}
}
