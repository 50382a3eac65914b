//go:build linux

package ioengine

import (
	"bytes"
	"testing"

	"github.com/clydebench/clyde/internal/osio"
)

// TestMmapProtection is fio_mmap_file's choice of protection for a job's
// directions (blockbench's TestEngineConfigDirections maps a job's rw and
// verify to them).
func TestMmapProtection(t *testing.T) {
	for _, c := range []struct {
		reads, writes bool
		want          int
	}{
		{true, false, 1}, {false, true, 2}, {true, true, 3},
	} {
		if got := mmapProt(Config{Reads: c.reads, Writes: c.writes}); got != c.want {
			t.Errorf("reads %v writes %v: prot %d, want %d (1 read, 2 write)", c.reads, c.writes, got, c.want)
		}
	}
}

// TestMmapMapsWholeOrPartial runs reads and writes through the map, each
// block once in a scattered order, with the whole region mapped, with
// direct=1 (msync after each I/O), and on a partial map (each I/O maps
// its own range): every read gets the bytes at its offset, every write
// reaches the file there and nowhere else, and a partial map holds the
// last I/O's range only.
func TestMmapMapsWholeOrPartial(t *testing.T) {
	const blocks = 256
	for _, c := range []struct {
		name            string
		direct, partial bool
	}{{"buffered", false, false}, {"direct", true, false}, {"partial map", false, true}} {
		t.Run(c.name, func(t *testing.T) {
			path := patternFile(t, testDir(t), blocks, 0)
			e := openEngine(t, mmapDriver, path, osio.ReadWrite, 1, blocks*testBS)
			m := e.(*mmapEngine)
			m.direct = c.direct
			if m.partial || m.data == nil {
				t.Fatal("the region was not mapped whole")
			}
			if c.partial {
				m.unmap()
				m.partial = true
			}
			reqs := make([]ioReq, blocks)
			for k := range int64(blocks) {
				i := k * 97 % blocks
				op, buf := Read, make([]byte, testBS)
				if i%2 == 1 {
					op, buf = Write, bytes.Repeat([]byte{byte(i) | 1}, testBS)
				}
				reqs[i] = ioReq{op, i * testBS, buf}
			}
			for _, r := range drive(t, mmapDriver, e, 1, reqs) {
				if r.back != 1 || r.err != nil || r.n != testBS {
					t.Fatalf("an I/O: back %d times, %d bytes, %v", r.back, r.n, r.err)
				}
			}
			for i, r := range reqs {
				if r.op == Read && !bytes.Equal(r.buf, blockPattern(int64(i))) {
					t.Fatalf("the read of block %d got other bytes", i)
				}
			}
			if c.partial && len(m.data) != testBS {
				t.Errorf("a partial map holds %d bytes, want the last I/O's %d", len(m.data), testBS)
			}
			if u := (&Unit{Op: Sync, Index: 1}); e.Queue(u) != Completed || u.Err != nil {
				t.Fatal(u.Err)
			}
			_ = e.Close()
			checkFile(t, path, reqs)
		})
	}
}
