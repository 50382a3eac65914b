package blockbench

import (
	"testing"
)

// TestBlockPerm: fio's random map, each block once per pass, for sizes
// around powers of two, and the next pass again.
func TestBlockPerm(t *testing.T) {
	for _, n := range []uint64{2, 3, 4, 5, 63, 64, 65, 1000, 4096} {
		p := newBlockPerm(n, newRand(DefaultSeed, 1))
		for pass := range 2 {
			seen := make([]bool, n)
			for range n {
				b := p.next()
				if b >= n || seen[b] {
					t.Fatalf("n=%d pass %d: block %d drawn twice or out of range", n, pass, b)
				}
				seen[b] = true
			}
		}
	}
}

// TestBlockPermOrder: two workers draw different orders, and an order is
// not the sequential one.
func TestBlockPermOrder(t *testing.T) {
	a, b := newBlockPerm(256, newRand(DefaultSeed, 1)), newBlockPerm(256, newRand(DefaultSeed, 2))
	same, inOrder := 0, 0
	prev := uint64(0)
	for i := range 256 {
		x, y := a.next(), b.next()
		if x == y {
			same++
		}
		if i > 0 && x == prev+1 {
			inOrder++
		}
		prev = x
	}
	if same > 16 || inOrder > 16 {
		t.Errorf("%d of 256 draws agree between workers, %d follow their predecessor: not a random order", same, inOrder)
	}
}

// TestReportEntries: fio's stat.c rule: group_reporting joins the entry of
// the workload before it in the same reporting group.
func TestReportEntries(t *testing.T) {
	wl := func(group int, gr bool) *workload {
		return &workload{Workload: Workload{GroupReporting: gr}, groupID: group}
	}
	cases := []struct {
		name string
		ws   []*workload
		want []int
	}{
		{"no group_reporting: one entry each", []*workload{wl(0, false), wl(0, false), wl(0, false)}, []int{0, 1, 2}},
		{"group_reporting: one entry per group", []*workload{wl(0, true), wl(0, true), wl(1, true), wl(1, true)}, []int{0, 0, 1, 1}},
		{"mixed", []*workload{wl(0, false), wl(0, true), wl(1, false)}, []int{0, 0, 1}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, n := reportEntries(c.ws)
			for i := range got {
				if got[i] != c.want[i] {
					t.Fatalf("entries %v, want %v", got, c.want)
				}
			}
			if n != c.want[len(c.want)-1]+1 {
				t.Errorf("%d entries, want %d", n, c.want[len(c.want)-1]+1)
			}
		})
	}
}
