package blockbench

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
)

func TestVolumeMap(t *testing.T) {
	ts := func(sizes ...int64) []*target {
		var out []*target
		for _, s := range sizes {
			out = append(out, &target{size: s, exists: true})
		}
		return out
	}
	const k = 4 << 10
	cases := []struct {
		name   string
		ts     []*target
		stripe int64
		block  int64
		lun    int
		off    int64
	}{
		{"raid0 first block", ts(4<<20, 4<<20), 1 << 20, 0, 0, 0},
		{"raid0 end of the first stripe", ts(4<<20, 4<<20), 1 << 20, 255, 0, 255 * k},
		{"raid0 second stripe is on the second LUN", ts(4<<20, 4<<20), 1 << 20, 256, 1, 0},
		{"raid0 third stripe is back on the first", ts(4<<20, 4<<20), 1 << 20, 512, 0, 1 << 20},
		{"raid0 three LUNs", ts(4<<20, 4<<20, 4<<20), 1 << 20, 5*256 + 3, 2, 1<<20 + 3*k},
		{"concat inside the first", ts(1<<20+1000, 2<<20), 0, 255, 0, 255 * k},
		{"concat past the first's last whole block", ts(1<<20+1000, 2<<20), 0, 256, 1, 0},
		{"concat last block", ts(1<<20+1000, 2<<20), 0, 256 + 511, 1, 511 * k},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			size := volumeSize(tc.ts, tc.stripe)
			m := newVolumeMap(tc.ts, tc.stripe, k, region{0, size})
			lun, off := m.locate(tc.block)
			if lun != tc.lun || off != tc.off {
				t.Errorf("block %d -> LUN %d offset %d, want %d %d", tc.block, lun, off, tc.lun, tc.off)
			}
			if off+k > tc.ts[lun].size {
				t.Errorf("block %d runs past the end of its LUN", tc.block)
			}
		})
	}
	m := newVolumeMap(ts(4<<20, 3<<20), 1<<20, k, region{0, volumeSize(ts(4<<20, 3<<20), 1<<20)})
	if m.b1 != 6*256 {
		t.Errorf("raid0 of 4 and 3 MiB has %d blocks, want 6 stripes' worth (the smaller LUN's 3 stripes on each)", m.b1)
	}
}

// A sequential pass over a volume writes every block of every member once,
// and nothing past a member's end: with random data on files of zeros, the
// members come out non-zero up to their last whole block.
func TestVolumeWritesEveryMember(t *testing.T) {
	for _, tc := range []struct {
		name   string
		stripe int64
		sizes  []int
	}{
		{"raid0", 64 << 10, []int{1 << 20, 1 << 20, 1 << 20}},
		{"concat", 0, []int{1<<20 + 5000, 512 << 10}},
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
			w := Workload{Name: "v", Filename: names[0], Volume: &Volume{Filenames: names, Stripe: tc.stripe}, RW: Write,
				BS: 4 << 10, IODepth: 4, NumJobs: 1, IOEngine: EngineAuto, Buffer: Buffer{Kind: BufferRandom}, Seed: 3}
			res, err := RunPlan(context.Background(), Plan{Groups: []Group{{w}}, DestroyData: true})
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
			if tc.stripe == 0 && res.Jobs[0].Write.IOBytes != whole {
				t.Errorf("wrote %d bytes, want the members' whole blocks, %d", res.Jobs[0].Write.IOBytes, whole)
			}
		})
	}
}

func TestVolumeRefusals(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a")
	if err := os.WriteFile(a, make([]byte, 1<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		v    Volume
		bs   int64
		flag string
	}{
		{"member missing", Volume{Filenames: []string{a, filepath.Join(dir, "none")}}, 4096, "-testname"},
		{"member twice", Volume{Filenames: []string{a, a}}, 4096, "-testname"},
		{"bs does not divide the stripe", Volume{Filenames: []string{a}, Stripe: 1 << 20}, 3 << 10, "--bs"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v := tc.v
			w := Workload{Name: "v", Filename: a, Volume: &v, RW: RandRead, BS: tc.bs, IODepth: 1, NumJobs: 1,
				IOEngine: EnginePsync, Buffer: Buffer{Kind: BufferRandom}}
			res, err := RunPlan(context.Background(), Plan{Groups: []Group{{w}}})
			if res != nil || !isUsageFor(err, tc.flag) {
				t.Fatalf("err %v, want a usage error naming %s", err, tc.flag)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "none")); err == nil {
		t.Error("a refused volume created its missing member")
	}
}
