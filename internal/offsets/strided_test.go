package offsets

import (
	"strings"
	"testing"
)

// TestWalk: fio's zonemode=strided as fio 3.33 ran each case (offsets
// from its latency log) for a sequential read of 4 KiB blocks: zonesize
// bytes in a zone of zonerange, then zonerange+zoneskip on, back to the
// start past the end; a sequential position wraps within a zone smaller
// than zonesize.
func TestWalk(t *testing.T) {
	const m = 1 << 20
	cases := []struct {
		name  string
		size  int64
		zones StridedZones
		// runs are the MiB-sized runs of offsets fio issued, as
		// (MiB, count of 4 KiB I/Os).
		runs [][2]int64
	}{
		{"zoneskip, wrapping", 16 * m, StridedZones{Size: m, Skip: 3 * m},
			[][2]int64{{0, 256}, {4, 256}, {8, 256}, {12, 256}, {0, 256}, {4, 256}, {8, 256}, {12, 256}, {0, 256}, {4, 256}, {8, 256}, {12, 256}, {0, 256}, {4, 256}, {8, 256}, {12, 256}}},
		{"zonesize above zonerange reads the zone twice", 8 * m, StridedZones{Size: 2 * m, Range: m, Skip: m},
			[][2]int64{{0, 512}, {2, 512}, {4, 512}, {6, 512}}},
		{"no skip", 12 * m, StridedZones{Size: 4 * m},
			[][2]int64{{0, 256}, {1, 256}, {2, 256}, {3, 256}, {4, 256}, {5, 256}, {6, 256}, {7, 256}, {8, 256}, {9, 256}, {10, 256}, {11, 256}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			z := NewWalk(c.zones, 0, c.size, c.size)
			var pos int64
			var runs [][2]int64
			for i := range c.size / 4096 {
				restart := z.Step(&pos, 4096)
				if want := i*4096%z.rng == 0; restart != want {
					t.Fatalf("I/O %d: map restart %v, want %v (every zonerange bytes)", i, restart, want)
				}
				mib := pos / m
				pos += 4096
				if len(runs) == 0 || runs[len(runs)-1][0] != mib {
					runs = append(runs, [2]int64{mib, 0})
				}
				runs[len(runs)-1][1]++
			}
			if len(runs) != len(c.runs) {
				t.Fatalf("runs %v, want fio's %v", runs, c.runs)
			}
			for i := range runs {
				if runs[i] != c.runs[i] {
					t.Fatalf("runs %v, want fio's %v", runs, c.runs)
				}
			}
		})
	}
}

// TestStridedZonesProblem: a range or skip needs a size; none is negative.
func TestStridedZonesProblem(t *testing.T) {
	for _, c := range []struct {
		z    StridedZones
		want string
	}{
		{StridedZones{}, ""},
		{StridedZones{Size: 4096, Range: 8192, Skip: 4096}, ""},
		{StridedZones{Skip: 4096}, "need zonemode=strided"},
		{StridedZones{Range: 4096}, "need zonemode=strided"},
		{StridedZones{Size: 4096, Skip: -1}, "negative"},
	} {
		if _, got := c.z.Problem(); (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("%+v: %q, want %q", c.z, got, c.want)
		}
	}
	if r := (StridedZones{Size: 4096}).RangeIn(1 << 20); r != 4096 {
		t.Errorf("zonerange defaults to zonesize: %d", r)
	}
	if r := (StridedZones{}).RangeIn(1 << 20); r != 1<<20 {
		t.Errorf("no zones: the region's %d, got %d", 1<<20, r)
	}
}
