package orion

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/clydebench/clyde/blockbench"
)

func TestConcatLayout(t *testing.T) {
	const k = 4 << 10
	sizes := []int64{1<<20 + 1000, 2 << 20}
	cases := []struct {
		name  string
		block int64
		lun   int
		off   int64
	}{
		{"inside the first", 255, 0, 255 * k},
		{"past the first's last whole block", 256, 1, 0},
		{"last block", 256 + 511, 1, 511 * k},
	}
	var c concat
	size := c.Size(sizes)
	m := c.Blocks(sizes, k)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			lun, off := m.Locate(tc.block)
			if lun != tc.lun || off != tc.off {
				t.Errorf("block %d -> LUN %d offset %d, want %d %d", tc.block, lun, off, tc.lun, tc.off)
			}
			if off+k > sizes[lun] {
				t.Errorf("block %d runs past the end of its LUN", tc.block)
			}
		})
	}
	if end := m.First(size); size != 3<<20+1000 || end != 256+512 {
		t.Errorf("concatenation of %v: %d bytes, %d blocks; want the sum and each member's whole blocks", sizes, size, end)
	}
}

// A sequential pass over a concatenated volume writes every block of
// every member once, and nothing past a member's end: with random data on
// files of zeros, the members come out non-zero up to their last whole
// block. (TestRaid0WritesEveryMember holds its stripes to the same.)
func TestConcatWritesEveryMember(t *testing.T) {
	for _, tc := range []struct {
		name   string
		layout blockbench.VolumeLayout
		sizes  []int
	}{
		{"concat", concat{}, []int{1<<20 + 5000, 512 << 10}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			var names []string
			for i, s := range tc.sizes {
				p := filepath.Join(dir, string(rune('a'+i)))
				if err := os.WriteFile(p, make([]byte, s), 0o644); err != nil {
					t.Fatal(err)
				}
				names = append(names, p)
			}
			w := blockbench.Workload{Name: "v", Filename: names[0], Volume: &blockbench.Volume{Filenames: names, Layout: tc.layout},
				RW: blockbench.Write, BS: 4 << 10, IODepth: 4, NumJobs: 1, IOEngine: blockbench.EngineAuto,
				Buffer: blockbench.Buffer{Kind: blockbench.BufferRandom}, Seed: 3}
			res, err := blockbench.RunPlan(context.Background(), blockbench.Plan{Groups: []blockbench.Group{{w}}, DestroyData: true})
			if err != nil {
				t.Fatal(err)
			}
			var whole int64
			for i, p := range names {
				b, _ := os.ReadFile(p)
				used := len(b) / (4 << 10) * (4 << 10)
				zero := make([]byte, 4<<10)
				for off := 0; off < used; off += 4 << 10 {
					if bytes.Equal(b[off:off+4<<10], zero) {
						t.Errorf("member %d: block at %d is zeros, never written", i, off)
						break
					}
				}
				if tail := b[used:]; len(tail) > 0 && !bytes.Equal(tail, make([]byte, len(tail))) {
					t.Errorf("member %d was written past its last whole block", i)
				}
				whole += int64(used)
			}
			if res.Jobs[0].Write.IOBytes != whole {
				t.Errorf("wrote %d bytes, want the members' whole blocks, %d", res.Jobs[0].Write.IOBytes, whole)
			}
		})
	}
}
