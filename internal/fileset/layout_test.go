package fileset

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestShares: size/nrfiles each, the first files a block more while what
// the division leaves lasts (setup_files); none with a filesize or no size.
func TestShares(t *testing.T) {
	four := []string{"a", "b", "c", "d"}
	for _, tc := range []struct {
		name        string
		set         Set
		size, minBS int64
		want        []int64
	}{
		{"even", Set{Names: four}, 64 << 10, 4096, []int64{16 << 10, 16 << 10, 16 << 10, 16 << 10}},
		{"remainder to the first files", Set{Names: four}, 67, 1, []int64{17, 17, 17, 16}},
		{"part of a block is no block", Set{Names: four}, 72<<10 + 100, 4096, []int64{18<<10 + 25, 18<<10 + 25, 18<<10 + 25, 18<<10 + 25}},
		{"filesize", Set{Names: four, Size: Size{Low: 4096, High: 4096}}, 64 << 10, 4096, []int64{0, 0, 0, 0}},
		{"no size", Set{Names: four}, 0, 4096, []int64{0, 0, 0, 0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.set.Shares(tc.size, tc.minBS); fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("%v, want %v", got, tc.want)
			}
		})
	}
}

// TestDrawer: fio's draws first, then clyde's own, within the range and
// whole blocks.
func TestDrawer(t *testing.T) {
	z := Size{Low: 4 << 10, High: 64 << 10, Draws: []int64{12 << 10, 60 << 10}}
	draw := z.Drawer(4096, rand.NewPCG(1, 2))
	if a, b := draw(), draw(); a != 12<<10 || b != 60<<10 {
		t.Fatalf("first draws %d, %d: want fio's 12k and 60k", a, b)
	}
	seen := map[int64]bool{}
	for range 1000 {
		v := draw()
		if v < z.Low || v > z.High || v%4096 != 0 {
			t.Fatalf("draw %d: not a whole block within %d..%d", v, z.Low, z.High)
		}
		seen[v] = true
	}
	if len(seen) < 10 {
		t.Errorf("%d distinct sizes in 1000 draws over 15 blocks", len(seen))
	}
}

func TestLay(t *testing.T) {
	fixed, rng := Size{Low: 16 << 10, High: 16 << 10}, Size{Low: 16 << 10, High: 32 << 10}
	draw := func() int64 { return 20 << 10 }
	for _, tc := range []struct {
		name             string
		z                Size
		real, off, share int64
		want             Region
		err              string
	}{
		{"share", Size{}, 0, 0, 8 << 10, Region{0, 8 << 10, 8 << 10}, ""},
		{"share of an existing file", Size{}, 64 << 10, 4096, 8 << 10, Region{4096, 8 << 10, 64 << 10}, ""},
		{"rest of the file", Size{}, 64 << 10, 4096, 0, Region{4096, 60 << 10, 64 << 10}, ""},
		{"offset past the file", Size{}, 4096, 8192, 0, Region{}, "past the end of f (4096 bytes)"},
		{"diskless", Size{}, -1, 0, 8 << 10, Region{0, 8 << 10, 8 << 10}, ""},
		{"filesize", fixed, 0, 4096, 0, Region{4096, 12 << 10, 16 << 10}, ""},
		{"offset past filesize", fixed, 0, 20 << 10, 0, Region{}, "past filesize"},
		{"drawn", rng, 0, 0, 0, Region{0, 20 << 10, 20 << 10}, ""},
		{"existing within the range keeps its size", rng, 24 << 10, 0, 0, Region{0, 24 << 10, 24 << 10}, ""},
		{"existing below the range gets a draw", rng, 8 << 10, 0, 0, Region{0, 20 << 10, 20 << 10}, ""},
		{"existing above the range gets a draw", rng, 40 << 10, 0, 0, Region{0, 20 << 10, 40 << 10}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.z.Lay("f", tc.real, tc.off, tc.share, draw)
			switch {
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
				t.Errorf("err %v, want %q", err, tc.err)
			case tc.err == "" && (err != nil || got != tc.want):
				t.Errorf("%+v %v, want %+v", got, err, tc.want)
			}
		})
	}
}
