package orion

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/clydebench/clyde/blockbench"
)

func TestRaid0Layout(t *testing.T) {
	const k = 4 << 10
	cases := []struct {
		name  string
		sizes []int64
		block int64
		lun   int
		off   int64
	}{
		{"first block", []int64{4 << 20, 4 << 20}, 0, 0, 0},
		{"end of the first stripe", []int64{4 << 20, 4 << 20}, 255, 0, 255 * k},
		{"second stripe is on the second LUN", []int64{4 << 20, 4 << 20}, 256, 1, 0},
		{"third stripe is back on the first", []int64{4 << 20, 4 << 20}, 512, 0, 1 << 20},
		{"three LUNs", []int64{4 << 20, 4 << 20, 4 << 20}, 5*256 + 3, 2, 1<<20 + 3*k},
	}
	r := raid0{Stripe: 1 << 20}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := r.Blocks(tc.sizes, k)
			lun, off := m.Locate(tc.block)
			if lun != tc.lun || off != tc.off {
				t.Errorf("block %d -> LUN %d offset %d, want %d %d", tc.block, lun, off, tc.lun, tc.off)
			}
			if off+k > tc.sizes[lun] {
				t.Errorf("block %d runs past the end of its LUN", tc.block)
			}
		})
	}
	sizes := []int64{4 << 20, 3 << 20}
	if end := r.Blocks(sizes, k).First(r.Size(sizes)); end != 6*256 {
		t.Errorf("raid0 of 4 and 3 MiB has %d blocks, want 6 stripes' worth (the smaller LUN's 3 stripes on each)", end)
	}
	if err := r.Check(3 << 10); !isUsageFor(err, "--bs") {
		t.Errorf("3 KiB blocks in 1 MiB stripes: %v, want a refusal naming --bs", err)
	}
}

// A sequential pass over a striped volume writes every block of every LUN
// once: with random data on files of zeros, the LUNs come out non-zero.
func TestRaid0WritesEveryMember(t *testing.T) {
	dir := t.TempDir()
	var names []string
	for i := range 3 {
		p := filepath.Join(dir, string(rune('a'+i)))
		if err := os.WriteFile(p, make([]byte, 1<<20), 0o644); err != nil {
			t.Fatal(err)
		}
		names = append(names, p)
	}
	w := blockbench.Workload{Name: "v", Filename: names[0], Volume: &blockbench.Volume{Filenames: names, Layout: raid0{Stripe: 64 << 10}},
		RW: blockbench.Write, BS: 4 << 10, IODepth: 4, NumJobs: 1, IOEngine: blockbench.EngineAuto,
		Buffer: blockbench.Buffer{Kind: blockbench.BufferRandom}, Seed: 3}
	res, err := blockbench.RunPlan(context.Background(), blockbench.Plan{Groups: []blockbench.Group{{w}}, DestroyData: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Jobs[0].Write.IOBytes; got != 3<<20 {
		t.Errorf("wrote %d bytes, want the three LUNs' %d", got, 3<<20)
	}
	zero := make([]byte, 4<<10)
	for i, p := range names {
		b, _ := os.ReadFile(p)
		for off := 0; off < len(b); off += 4 << 10 {
			if bytes.Equal(b[off:off+4<<10], zero) {
				t.Errorf("LUN %d: block at %d is zeros, never written", i, off)
				break
			}
		}
	}
}

// A .lun file that lists one LUN twice is refused, naming -testname, as
// the volume would open it as two of its members.
func TestLUNListedTwice(t *testing.T) {
	dir := t.TempDir()
	lun := goldenLUN(t, dir, "t")
	if err := os.WriteFile(filepath.Join(dir, "t.lun"), []byte(lun+"\n"+lun+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	o := DefaultOptions(RunSimple)
	o.TestName, o.OutputDir = filepath.Join(dir, "t"), ""
	if _, err := Prepare(o); !isUsageFor(err, "-testname") {
		t.Fatalf("err %v, want a refusal naming -testname", err)
	}
}
