package blockbench

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clydebench/clyde/result"
)

// TestNullRunsWithNoTarget runs fio's null engine on names no other engine
// could use: a path in a directory that does not exist, an existing file
// a write would need --destroy-data for, none at all. Nothing is created,
// opened for writing or changed; the result names no file and says why;
// every I/O is counted, at fio's depth 1, with slat measured only above
// iodepth 1 (fio's null is FIO_SYNCIO at depth 1).
func TestNullRunsWithNoTarget(t *testing.T) {
	dir := t.TempDir()
	existing := filepath.Join(dir, "keep.dat")
	orig := bytes.Repeat([]byte{0x5a}, 4096)
	if err := os.WriteFile(existing, orig, 0o644); err != nil {
		t.Fatal(err)
	}
	const size, bs = 1 << 20, 4096
	for _, c := range []struct {
		name, filename string
		rw             RW
		depth          int
	}{
		{"no filename, depth 1", "", RandRead, 1},
		{"a missing directory, depth 8", filepath.Join(dir, "no", "such", "dir", "f"), RandWrite, 8},
		{"an existing file, writes", existing, RandRW, 4},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := Workload{Name: "n", Filename: c.filename, RW: c.rw, RWMixRead: 50, BS: bs, Size: size, IODepth: c.depth,
				NumJobs: 1, IOEngine: EngineNull, Buffer: Buffer{Kind: BufferRandom, Refill: true}, Seed: 1, RandomMap: true, Fsync: 16}
			res, err := RunPlan(context.Background(), Plan{Groups: []Group{{w}}, Shape: fioShape})
			if err != nil {
				t.Fatal(err)
			}
			ents, _ := os.ReadDir(dir)
			if len(ents) != 1 || ents[0].Name() != "keep.dat" {
				t.Errorf("the directory holds %v: null made or left something", ents)
			}
			if b, _ := os.ReadFile(existing); !bytes.Equal(b, orig) {
				t.Error("the existing file changed")
			}
			tg := res.Target
			if tg.Kind != string(EngineNull) || tg.ResolvedPath != "" || tg.Created || tg.SizeBytes != size {
				t.Errorf("target %+v: want kind null, no path, nothing created, the region's size", tg)
			}
			if !strings.Contains(strings.Join(res.Notes, "\n"), "ioengine null: no file") {
				t.Errorf("notes %q: want the one saying no file was used", res.Notes)
			}
			j := res.Jobs[0]
			if got := j.Read.IOBytes + j.Write.IOBytes; got != size || j.Config.IOEngine != "null" {
				t.Errorf("%d bytes moved by %q, want %d by null", got, j.Config.IOEngine, size)
			}
			if writes := j.Write.TotalIOs; writes > 0 && j.Sync.TotalIOs != (writes-1)/16 && j.Sync.TotalIOs != writes/16 {
				t.Errorf("%d writes, %d fsyncs with fsync=16: null takes syncs as fio's does", writes, j.Sync.TotalIOs)
			}
			if c.depth > 1 {
				if lv := j.IODepthLevel; len(lv) == 0 || lv[0].Key != "1" || lv[0].Value != 100 {
					t.Errorf("iodepth_level %v, want every I/O at depth 1, as fio's null", lv)
				}
			}
			slat := j.Read.Slat.N + j.Write.Slat.N
			if (c.depth > 1) != (slat > 0) {
				t.Errorf("iodepth %d: %d slat samples; fio measures slat on null only above depth 1", c.depth, slat)
			}
		})
	}
}

// TestNullNeedsASize: with no file to take a size from, the region is
// size= alone; a plan without one is refused before anything runs.
func TestNullNeedsASize(t *testing.T) {
	w := Workload{Name: "n", RW: RandRead, BS: 4096, IODepth: 1, NumJobs: 1, IOEngine: EngineNull}
	_, err := RunPlan(context.Background(), Plan{Groups: []Group{{w}}})
	if !result.IsUsage(err) || !strings.Contains(err.Error(), "--size") {
		t.Errorf("err = %v, want a usage error naming --size", err)
	}
}
