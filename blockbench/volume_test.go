package blockbench

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/clydebench/clyde/result"
)

func TestVolumeMap(t *testing.T) {
	const k = 4 << 10
	sizes := []int64{1<<20 + 1000, 2 << 20}
	cases := []struct {
		name  string
		block int64
		lun   int
		off   int64
	}{
		{"concat inside the first", 255, 0, 255 * k},
		{"concat past the first's last whole block", 256, 1, 0},
		{"concat last block", 256 + 511, 1, 511 * k},
	}
	v := &Volume{}
	size := v.layout().Size(sizes)
	var ts []*target
	for _, n := range sizes {
		ts = append(ts, &target{size: n, exists: true})
	}
	m := newVolumeMap(v, ts, k, region{0, size})
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			lun, off := m.blocks.Locate(tc.block)
			if lun != tc.lun || off != tc.off {
				t.Errorf("block %d -> LUN %d offset %d, want %d %d", tc.block, lun, off, tc.lun, tc.off)
			}
			if off+k > sizes[lun] {
				t.Errorf("block %d runs past the end of its LUN", tc.block)
			}
		})
	}
	if size != 3<<20+1000 || m.b1 != 256+512 {
		t.Errorf("concatenation of %v: %d bytes, %d blocks; want the sum and each member's whole blocks", sizes, size, m.b1)
	}
}

// lastOnly is a layout for the hook's test: every block on the last
// member, which is the whole address space.
type lastOnly struct{}

func (lastOnly) Check(int64) error                      { return nil }
func (lastOnly) Size(members []int64) int64             { return members[len(members)-1] }
func (lastOnly) Blocks(m []int64, bs int64) BlockLayout { return lastBlocks{lun: len(m) - 1, bs: bs} }

type lastBlocks struct {
	lun int
	bs  int64
}

func (b lastBlocks) First(off int64) int64       { return (off + b.bs - 1) / b.bs }
func (b lastBlocks) Locate(k int64) (int, int64) { return b.lun, k * b.bs }

// A sequential pass over a concatenated volume writes every block of
// every member once, and nothing past a member's end: with random data on
// files of zeros, the members come out non-zero up to their last whole
// block. (orion's TestRaid0WritesEveryMember holds its stripes to the
// same.)
func TestVolumeWritesEveryMember(t *testing.T) {
	for _, tc := range []struct {
		name   string
		layout VolumeLayout
		sizes  []int
	}{
		{"concat", nil, []int{1<<20 + 5000, 512 << 10}},
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
			w := Workload{Name: "v", Filename: names[0], Volume: &Volume{Filenames: names, Layout: tc.layout}, RW: Write,
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
			if res.Jobs[0].Write.IOBytes != whole {
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
		{"member missing", Volume{Filenames: []string{a, filepath.Join(dir, "none")}}, 4096, "--filename"},
		{"member twice", Volume{Filenames: []string{a, a}}, 4096, "--filename"},
		{"the layout refuses the block size", Volume{Filenames: []string{a}, Layout: refusing{}}, 3 << 10, "--bs"},
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

// refusing is a layout that takes no block size.
type refusing struct{ lastOnly }

func (refusing) Check(bs int64) error { return result.Usagef("--bs", "%d: no", bs) }

// A volume's Layout places its I/O: with every block on the last member,
// a write pass leaves the first member as it was and fills the last.
func TestVolumeLayoutPlacesTheIO(t *testing.T) {
	dir := t.TempDir()
	var names []string
	for _, n := range []string{"a", "b"} {
		p := filepath.Join(dir, n)
		if err := os.WriteFile(p, make([]byte, 256<<10), 0o644); err != nil {
			t.Fatal(err)
		}
		names = append(names, p)
	}
	w := Workload{Name: "v", Filename: names[0], Volume: &Volume{Filenames: names, Layout: lastOnly{}}, RW: Write,
		BS: 4 << 10, IODepth: 2, NumJobs: 1, IOEngine: EngineAuto, Buffer: Buffer{Kind: BufferRandom}, Seed: 3}
	res, err := RunPlan(context.Background(), Plan{Groups: []Group{{w}}, DestroyData: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Jobs[0].Write.IOBytes; got != 256<<10 {
		t.Errorf("wrote %d bytes, want the last member's %d", got, 256<<10)
	}
	first, _ := os.ReadFile(names[0])
	last, _ := os.ReadFile(names[1])
	if !bytes.Equal(first, make([]byte, len(first))) {
		t.Error("the first member was written; the layout puts nothing there")
	}
	for off := 0; off < len(last); off += 4 << 10 {
		if bytes.Equal(last[off:off+4<<10], make([]byte, 4<<10)) {
			t.Fatalf("the last member's block at %d was never written", off)
		}
	}
}
