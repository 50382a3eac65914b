package blockbench

import (
	"bytes"
	"context"
	"github.com/clydebench/clyde/internal/blocktarget"
	"os"
	"path/filepath"
	"testing"

	"github.com/clydebench/clyde/result"
)

// newVolumeMap gives a workload the block range of its region in the
// layout's numbering: with every block on the last member, a region from
// byte 4097 starts at its first whole block, 2, and Locate places it.
func TestVolumeMap(t *testing.T) {
	const k = 4 << 10
	sizes := []int64{1 << 20, 2<<20 + 1000}
	var ts []*target
	for _, n := range sizes {
		ts = append(ts, &target{Target: &blocktarget.Target{Size: n, Exists: true}})
	}
	m := newVolumeMap(&Volume{Layout: lastOnly{}}, ts, k, region{offset: k + 1, size: 1 << 20})
	// The region ends at byte 4097 + 1 MiB, in block 258.
	if m.b0 != 2 || m.b1 != 258 || m.bs != k {
		t.Errorf("blocks [%d, %d) of %d bytes, want [2, 258) of %d", m.b0, m.b1, m.bs, k)
	}
	if lun, off := m.blocks.Locate(m.b0); lun != 1 || off != 2*k {
		t.Errorf("first block on LUN %d at %d, want the last member at %d", lun, off, 2*k)
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
		{"member missing", Volume{Filenames: []string{a, filepath.Join(dir, "none")}, Layout: lastOnly{}}, 4096, "--filename"},
		{"member twice", Volume{Filenames: []string{a, a}, Layout: lastOnly{}}, 4096, "--filename"},
		{"no layout", Volume{Filenames: []string{a}}, 4096, ""},
		{"the layout refuses the block size", Volume{Filenames: []string{a}, Layout: refusing{}}, 3 << 10, "--bs"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v := tc.v
			w := Workload{Name: "v", Filename: a, Volume: &v, RW: RandRead, BS: tc.bs, IODepth: 1, NumJobs: 1,
				IOEngine: EnginePsync, Buffer: Buffer{Kind: BufferRandom}}
			res, err := RunPlan(context.Background(), Plan{Groups: []Group{{w}}})
			if tc.flag == "" && (res != nil || err == nil || result.IsUsage(err)) {
				t.Fatalf("err %v, want a refusal of the caller's plan (not the user's flags)", err)
			}
			if tc.flag != "" && (res != nil || !isUsageFor(err, tc.flag)) {
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
